import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { storedSession, storedSpans, toolCalls } from './helpers.ts';

/**
 * examples/mcp-agent.mjs as docs/sdk.md tells users to run it: plain `node` (no tsx) importing
 * the built `spyglass-agent-sdk`, against a running server; the loop is stopped and the server has it.
 */
const EXAMPLE = fileURLToPath(new URL('../../examples/mcp-agent.mjs', import.meta.url));
let server: TestServer;

/** The example as a user runs it, against `url` with `key` (none: empty), within 20 s. */
const runExample = (url: string, key = '') =>
  promisify(execFile)(process.execPath, [EXAMPLE], {
    env: { ...process.env, SPYGLASS_URL: url, SPYGLASS_API_KEY: key, NODE_OPTIONS: '' },
    timeout: 20_000,
  });

beforeAll(async () => {
  server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' });
});
afterAll(async () => server?.dispose());

describe('examples/mcp-agent.mjs', () => {
  it('drives server-everything over stdio and is stopped by loop detection', async () => {
    const { stdout } = await runExample(server.httpUrl);
    expect(stdout).toContain('get-sum  → The sum of 19.99 and 5.01 is 25.');
    expect(stdout).toContain('echo #2  → Echo: are we there yet?');
    expect(stdout).not.toContain('echo #3');
    expect(stdout).toContain('stopped  → LoopDetectedError (loop_detected, guard loop_repetition)');
    expect(stdout).toContain('spans    → 6 sent, 0 dropped, 0 still buffered');
    expect(stdout).toContain('server   → session health_tag loop_detected, 4 tool calls');

    const sessionId = /^session (\S+) /m.exec(stdout)?.[1] ?? '';
    expect((await storedSession(server, sessionId)).session.health_tag).toBe('loop_detected');
    const calls = toolCalls(await storedSpans(server, sessionId));
    // Sorted: the example runs on the real clock, and spans of one millisecond tie on the server.
    expect(calls.map((c) => `${c.tool_name} ${c.status} ${c.health_tag}`).sort()).toEqual([
      'echo prevented loop_detected',
      'echo success null',
      'echo success null',
      'get-sum success null',
    ]);
  });

  // Two runs of the example, each allowed 20 s (a loaded machine took over 30 s for both).
  it(
    'with auth on and no key, says the key is missing and which variable sets it (the server answered)',
    { timeout: 60_000 },
    async () => {
      const key = 'sk-example-auth-0123456789abcdef0123';
      const authed = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off', SPYGLASS_API_KEYS: key });
      try {
        const { stdout } = await runExample(authed.httpUrl);
        expect(stdout).toContain(
          `server   → ${authed.httpUrl} requires an API key (auth is on): set SPYGLASS_API_KEY`,
        );
        expect(stdout).not.toContain('not reachable');
        const withKey = await runExample(authed.httpUrl, key);
        // The curl line it prints carries the key (by its variable, not its value).
        expect(withKey.stdout).toContain('curl -s -H "x-api-key: $SPYGLASS_API_KEY" ');
        expect(withKey.stdout).not.toContain(key);
      } finally {
        await authed.dispose();
      }
    },
  );
});
