import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolCliStores, runCliInProcess } from '../helpers/cli.ts';
import { startReceiver, type Receiver } from '../alerts/helpers.ts';
import { tempDir, writeConfig } from '../health/helpers.ts';
import { startSwitchableMcp, type SwitchableMcp } from './switchable-mcp.ts';

/**
 * `spyglass monitor --once` as a user runs it, on its own database: the passes add up across runs
 * (the state is rebuilt from stored results), and the chat message leaves before the process exits.
 */
let mcp: SwitchableMcp;
let receiver: Receiver;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  mcp = await startSwitchableMcp();
  receiver = await startReceiver();
});
afterAll(async () => {
  await mcp?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

// The passes run on one pooled embedded database (test/helpers/cli.ts), not one open each: each
// command still builds its services and rebuilds the monitor's state from the stored results.
poolCliStores();

const typeOf = (body: any): string | undefined =>
  (body.blocks?.[1]?.fields as { text: string }[] | undefined)
    ?.find((f) => f.text.startsWith('*Type*\n'))
    ?.text.slice(7);

describe('spyglass monitor --once', () => {
  it('fires mcp_down once the passes reach alerts.consecutive_failures, and mcp_recovered when the server is back', async () => {
    const config = writeConfig(dir, {
      monitor: { enabled: false },
      network: { allow_private_targets: ['127.0.0.1/32'] },
      alerts: { chat_webhook: receiver.url, consecutive_failures: 2 },
      servers: [
        {
          name: 'cli-flaky',
          transport: 'streamable_http',
          url: mcp.urlOf('cli-flaky'),
          timeout_seconds: 5,
        },
      ],
    });
    const env = {
      SPYGLASS_CONFIG: config,
      SPYGLASS_DATA_DIR: join(dir, 'data'),
      SPYGLASS_LOG_LEVEL: 'error',
    };
    const pass = async (expectedCode: number) => {
      const r = await runCliInProcess(['monitor', '--once', '--json'], env);
      expect(r.code, r.stderr).toBe(expectedCode);
      return receiver.bodies.map(typeOf);
    };

    mcp.fail('cli-flaky', true);
    expect(await pass(1)).toEqual([]);
    expect(await pass(1)).toEqual(['mcp_down']);
    expect(receiver.bodies[0].text).toContain('MCP server cli-flaky is down');
    expect(await pass(1)).toEqual(['mcp_down']);
    mcp.fail('cli-flaky', false);
    expect(await pass(0)).toEqual(['mcp_down', 'mcp_recovered']);
  }, 240_000);
});
