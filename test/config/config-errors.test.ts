import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/auth.ts';
import { runCli } from '../helpers/cli.ts';
import { startTestServer } from '../helpers/server.ts';

/** Configuration mistakes are all reported at once, before anything is opened, with exit code 2. */
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(name: string, yaml: string): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

describe('spyglass serve with a broken configuration', () => {
  it('lists misspelt keys, a bad log level, a bad boolean and a bad CIDR together, and opens nothing', async () => {
    const path = config(
      'typos.yaml',
      [
        'rate_limit: { default: 5 }',
        'monitor: { enabeld: false }',
        'auth: { trusted_proxy_cidrs: ["10.0.0.0/33"] }',
        'servers:',
        '  - { name: fs, transport: stdio, command: npx, timout_seconds: 3 }',
      ].join('\n'),
    );
    const dataDir = join(dir, 'data');
    const r = await runCli(['serve'], {
      SPYGLASS_CONFIG: path,
      SPYGLASS_DATA_DIR: dataDir,
      SPYGLASS_LOG_LEVEL: 'verbose',
      SPYGLASS_RATE_LIMITS: 'nope',
      SPYGLASS_PORT: '0',
      SPYGLASS_GRPC_PORT: '0',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('spyglass: invalid configuration:');
    expect(r.stderr).toContain(`${path}: unknown key rate_limit (known top-level keys: `);
    expect(r.stderr).toContain(
      `${path}: unknown key monitor.enabeld (known keys of monitor: enabled, `,
    );
    expect(r.stderr).toContain(`${path}: unknown key servers[0].timout_seconds`);
    expect(r.stderr).toContain(
      'SPYGLASS_LOG_LEVEL (log_level) must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
    );
    expect(r.stderr).toContain(
      'SPYGLASS_RATE_LIMITS (rate_limits.enabled) must be true or false (got "nope")',
    );
    expect(r.stderr).toContain('"10.0.0.0/33" is not an IP address or CIDR');
    expect(r.stderr).not.toMatch(/storage ready|listening|at .*\.js:\d+/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses the same port for HTTP and gRPC', async () => {
    const r = await runCli(['serve'], {
      SPYGLASS_PORT: '4999',
      SPYGLASS_GRPC_PORT: '4999',
      SPYGLASS_DATA_DIR: join(dir, 'same'),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('SPYGLASS_PORT and SPYGLASS_GRPC_PORT are both 4999');
  });
});

describe('SPYGLASS_RATE_LIMITS', () => {
  // `false` and `0` used to leave limits on (only `off` was understood).
  it(
    '=false turns rate limiting off, even with a limit of 1 request a minute in the file',
    { timeout: 120_000 },
    async () => {
      const server = await startTestServer({
        SPYGLASS_CONFIG: config('limits.yaml', 'rate_limits: { default: 1 }\n'),
        SPYGLASS_RATE_LIMITS: 'false',
      });
      try {
        expect(server.services.config.rateLimits.enabled).toBe(false);
        const statuses = [];
        for (let i = 0; i < 3; i++)
          statuses.push((await call(server.httpUrl, 'GET', '/api/traces/spans')).status);
        expect(statuses).toEqual([200, 200, 200]);
      } finally {
        await server.dispose();
      }
    },
  );
});
