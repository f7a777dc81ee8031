import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { runCli, runCliInProcess } from '../helpers/cli.ts';
import { nativeMultiAgent } from '../helpers/multi-agent.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { postJson } from '../helpers/spans.ts';

const ADMIN = `sg_${'c'.repeat(64)}`;
let server: TestServer;
let pgUrl: string | undefined;

beforeAll(async () => {
  const pg = backends.find((b) => b.name === 'postgres' && b.available);
  pgUrl = pg ? (await pg.env()).SPYGLASS_DATABASE_URL : undefined;
  server = await startTestServer({
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
    ...(pgUrl ? { SPYGLASS_DATABASE_URL: pgUrl } : {}),
  });
  expect(
    (
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        nativeMultiAgent('cli-1', Date.now() - 60_000),
        { 'x-api-key': ADMIN },
      )
    ).status,
  ).toBe(202);
});
afterAll(async () => server?.dispose());

describe('spyglass sessions', () => {
  it('draws a session as a tree through a running server', async () => {
    const { code, stdout } = await runCli([
      'sessions',
      '--id',
      'cli-1',
      '--url',
      server.httpUrl,
      '--api-key',
      ADMIN,
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('session cli-1  agent planner  timeout');
    expect(stdout).toContain('3 tool calls, 1 failed, 900 ms');
    expect(stdout.split('\n').slice(3, 9)).toEqual([
      '└─ ✓ agent planner: plan trip  900 ms',
      '   ├─ ✓ filesystem.read_file  20 ms',
      '   └─ ✓ handoff → researcher  760 ms',
      '      └─ ✓ agent researcher: research  740 ms',
      '         ├─ ✗ search.web_search  500 ms  (timeout after 500 ms)',
      '         └─ ✓ search.web_search  130 ms',
    ]);
  });

  it('lists sessions as a table and as JSON, filtered by agent', async () => {
    const table = await runCliInProcess([
      'sessions',
      '--agent',
      'planner',
      '--url',
      server.httpUrl,
      '--api-key',
      ADMIN,
    ]);
    expect(table.stdout).toMatch(/cli-1\s+│ planner\s+│ timeout/);
    const json = await runCliInProcess(
      ['sessions', '--agent', 'nobody', '--json', '--url', server.httpUrl],
      { SPYGLASS_API_KEY: ADMIN },
    );
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it('reads the database directly when no --url is given (PostgreSQL)', async ({ skip }) => {
    if (!pgUrl) skip('no PostgreSQL server installed');
    const { code, stdout } = await runCliInProcess(['sessions', '--id', 'cli-1', '--json'], {
      SPYGLASS_DATABASE_URL: pgUrl as string,
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).session).toMatchObject({
      session_id: 'cli-1',
      health_tag: 'timeout',
    });
  });

  it('says clearly when a session does not exist', async () => {
    const { code, stderr } = await runCliInProcess([
      'sessions',
      '--id',
      'nope',
      '--url',
      server.httpUrl,
      '--api-key',
      ADMIN,
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain('404: no session nope');
  });
});
