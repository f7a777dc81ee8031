import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveCheck } from '../../src/store/health-repo.ts';
import { insertScan } from '../../src/store/security-repo.ts';
import { poolCliStores, runCliInProcess } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tempDir, writeConfig } from '../health/helpers.ts';

/** `spyglass scorecard` as a user runs it: on the database, and against a running server. */
const ADMIN = `sg_${'e'.repeat(63)}f`;
let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = tempDir();
  const config = writeConfig(dir, {
    monitor: { enabled: false },
    servers: [
      {
        name: 'good',
        transport: 'streamable_http',
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: 'Bearer t' },
      },
      { name: 'open', transport: 'streamable_http', url: 'http://127.0.0.1:9/mcp' },
    ],
  });
  env = {
    SPYGLASS_CONFIG: config,
    SPYGLASS_DATA_DIR: join(dir, 'data'),
    SPYGLASS_LOG_LEVEL: 'error',
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Local commands run on one pooled embedded database, not one open of the data directory each.
poolCliStores();

describe('spyglass scorecard', () => {
  it(
    'grades every configured server from the database; --fail-below decides the exit code',
    { timeout: 120_000 },
    async () => {
      // no history at all: availability 0, never scanned → 20 + 15 + 10 = 45, F
      const r = await runCliInProcess(['scorecard', '--json', '--fail-below', 'd'], env);
      expect(r.code, r.stderr).toBe(1);
      const cards = JSON.parse(r.stdout);
      expect(cards.map((c: any) => [c.server_name, c.grade, c.score])).toEqual([
        ['good', 'F', 45],
        ['open', 'F', 45],
      ]);
      expect(
        (await runCliInProcess(['scorecard', '--fail-below', 'F', '--server', 'open'], env)).code,
      ).toBe(0);
      const bad = await runCliInProcess(['scorecard', '--fail-below', 'A++'], env);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('expected one of A+, A, B, C, D, F');
      const missing = await runCliInProcess(['scorecard', '--server', 'nobody'], env);
      expect([missing.code, missing.stderr.trim()]).toEqual([1, 'spyglass: no server nobody']);
    },
  );

  describe('--url', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({
        SPYGLASS_CONFIG: env.SPYGLASS_CONFIG as string,
        SPYGLASS_API_KEYS: ADMIN,
        SPYGLASS_RATE_LIMITS: 'off',
      });
      const db = server.services.store.db;
      for (const name of ['good', 'open']) {
        await saveCheck(db, {
          result: {
            id: randomUUID(),
            projectId: 'default',
            serverName: name,
            status: 'up',
            latencyMs: 20,
            toolsCount: 1,
            schemaHash: null,
            error: null,
            checkedAt: new Date(Date.now() - 60_000),
            schemaDrift: false,
            transport: 'streamable_http',
            serverInfo: null,
            protocolVersion: null,
          },
          instructions: null,
          tools: null,
          drift: null,
        });
        await insertScan(db, {
          id: randomUUID(),
          projectId: 'default',
          serverName: name,
          scannedAt: new Date(Date.now() - 60_000),
          findings: [],
        });
      }
    });
    afterAll(async () => server?.dispose());

    it(
      'asks a running server; the table shows grade, dimensions and the cap',
      { timeout: 120_000 },
      async () => {
        const r = await runCliInProcess(
          ['scorecard', '--url', server.httpUrl, '--api-key', ADMIN, '--fail-below', 'A'],
          env,
        );
        expect(r.code, r.stderr).toBe(1); // open is capped at C
        const lines = r.stdout.split('\n');
        expect(lines.find((l) => l.includes(' good '))).toMatch(/│ good\s+│ A\+\s+│ 100\s+│/);
        expect(lines.find((l) => l.includes(' open '))).toMatch(
          /│ open\s+│ C\s+│ 97\.5\s+│.*no_authentication \(max C\)/,
        );
        const one = await runCliInProcess(
          [
            'scorecard',
            '--url',
            server.httpUrl,
            '--api-key',
            ADMIN,
            '--server',
            'good',
            '--json',
            '--fail-below',
            'A+',
          ],
          env,
        );
        expect(one.code, one.stderr).toBe(0);
        expect(JSON.parse(one.stdout)).toMatchObject({
          server_name: 'good',
          grade: 'A+',
          cap_applied: null,
        });
      },
    );
  });
});
