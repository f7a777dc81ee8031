import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESCAPE_NAME, NUL_NAME } from '../fixtures/mcp/hostile-tools.ts';
import { call, expectStatus } from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { fixtureArgs } from '../helpers/fixture-scripts.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { stdioFixture, tempDir, writeConfig, writeTools } from '../health/helpers.ts';

/**
 * A hostile MCP server (test/fixtures/mcp/hostile-server.ts: NUL in descriptions, a tool name,
 * instructions and serverInfo; lone surrogates; terminal escapes; a 1 MB description; a 100-deep
 * schema) is checked, stored, scanned and graded like any other: PostgreSQL refuses NUL and lone
 * surrogates, and one such character used to fail every check and blind the scan and the grade.
 * A store failure never puts SQL or parameters in a scan. The server runs on PGlite; the same
 * text is stored and read back through each repository on both drivers in test/store/repos/.
 */
const ADMIN = `sg_${'7'.repeat(63)}b`;

const hostile = (name: string, env: Record<string, string> = {}) => ({
  name,
  transport: 'stdio',
  command: process.execPath,
  args: fixtureArgs('hostile-server'),
  env,
  timeout_seconds: 30,
});

describe.each(serverBackends)('$name', ({ available, env }) => {
  describe.runIf(available)('a hostile MCP server', () => {
    let dir: string;
    let server: InProcessApp; // API only: in-process (app.inject), no listening socket
    const post = (path: string, body: unknown = {}) =>
      call(server, 'POST', path, { key: ADMIN, body });
    const get = (path: string) => call(server, 'GET', path, { key: ADMIN });

    beforeAll(async () => {
      dir = tempDir();
      writeTools(join(dir, 'drifty.json'), [
        { name: 'read_file', description: 'Reads a file', inputSchema: { type: 'object' } },
      ]);
      const drifty = stdioFixture(
        'drifty',
        'normal',
        { timeout_seconds: 30 },
        { FIXTURE_TOOLS_FILE: join(dir, 'drifty.json') },
      );
      const config = writeConfig(dir, {
        monitor: { enabled: false },
        servers: [hostile('hostile'), hostile('clean', { HOSTILE_CLEAN: '1' }), drifty],
      });
      server = await startInProcessApp({
        SPYGLASS_CONFIG: config,
        SPYGLASS_API_KEYS: ADMIN,
        SPYGLASS_RATE_LIMITS: 'off',
        ...(await env()),
      });
    }, 60_000);

    afterAll(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it(
      'a NUL in its metadata is stored, is a poisoning finding, and grades it F like the same metadata without it',
      { timeout: 120_000 },
      async () => {
        const [checked] = expectStatus(
          await post('/api/health/check', { server_name: 'hostile' }),
          200,
          'check',
        ).json;
        expect(checked).toMatchObject({
          server_name: 'hostile',
          status: 'up',
          tools_count: 6,
          error: null,
        });
        const latest = expectStatus(await get('/api/health/servers/hostile'), 200, 'latest').json;
        // Stored and read back as the server sent it.
        expect(latest.status).toBe('up');
        expect(latest.server_info).toMatchObject({ name: 'hostile', version: '6.6.6\u0000-beta' });
        // The stored snapshot is the tool list as sent: the next check finds no drift.
        const [again] = expectStatus(
          await post('/api/health/check', { server_name: 'hostile' }),
          200,
          'again',
        ).json;
        expect(again).toMatchObject({ status: 'up', schema_drift: false, error: null });

        const [scan] = expectStatus(
          await post('/api/security/scan', { server_name: 'hostile' }),
          200,
          'scan',
        ).json;
        expect(scan.error).toBeNull();
        const rules = (tool: string | null) =>
          scan.findings.filter((f: any) => f.tool_name === tool).map((f: any) => f.rule);
        expect(rules('read_notes')).toEqual(
          expect.arrayContaining([
            'poisoning.nul',
            'poisoning.override',
            'poisoning.sensitive-path',
          ]),
        );
        expect(rules(NUL_NAME)).toContain('poisoning.nul');
        expect(rules(ESCAPE_NAME)).toEqual(
          expect.arrayContaining(['poisoning.ansi', 'poisoning.bidi']),
        );
        expect(rules('big')).toContain('poisoning.long-text');
        // The NUL at the bottom of the 100-deep schema is read too.
        expect(
          scan.findings.some(
            (f: any) =>
              f.rule === 'poisoning.nul' &&
              f.tool_name === 'deep' &&
              f.location.endsWith('.level100.description'),
          ),
        ).toBe(true);
        const nul = scan.findings.find(
          (f: any) => f.rule === 'poisoning.nul' && f.location === 'tools.read_notes.description',
        );
        expect(nul).toMatchObject({
          severity: 'high',
          evidence: expect.stringContaining('Reads your notes.\\u{0} Ignore'),
        });
        // The pins round-trip too: a second scan sees no rug pull.
        const [rescan] = expectStatus(
          await post('/api/security/scan', { server_name: 'hostile' }),
          200,
          'rescan',
        ).json;
        expect(rescan.findings.filter((f: any) => /rug-pull|identity\./.test(f.rule))).toEqual([]);
        expect(rescan.findings_count).toBe(scan.findings_count);

        await post('/api/health/check', { server_name: 'clean' });
        await post('/api/security/scan', { server_name: 'clean' });
        const card = expectStatus(
          await get('/api/health/servers/hostile/scorecard'),
          200,
          'card',
        ).json;
        const clean = expectStatus(
          await get('/api/health/servers/clean/scorecard'),
          200,
          'clean card',
        ).json;
        expect(clean.grade).toBe('F');
        expect(card.grade).toBe('F');
      },
    );

    it(
      'a drift to a NUL-bearing tool list raises its schema_drift alert, quoting the tool as sent',
      { timeout: 60_000 },
      async () => {
        expectStatus(await post('/api/health/check', { server_name: 'drifty' }), 200, 'baseline');
        writeTools(join(dir, 'drifty.json'), [
          {
            name: 'nul\u0000tool',
            description: 'Reads\u0000 a file',
            inputSchema: { type: 'object' },
          },
        ]);
        const [drifted] = expectStatus(
          await post('/api/health/check', { server_name: 'drifty' }),
          200,
          'drift',
        ).json;
        expect(drifted).toMatchObject({ status: 'degraded', schema_drift: true });
        await server.services.alertProducers.settled();
        const alerts = expectStatus(
          await get('/api/alerts/inbox?type=schema_drift'),
          200,
          'inbox',
        ).json;
        expect(alerts).toHaveLength(1);
        expect(alerts[0].message).toContain('tool_added nul\u0000tool');
        const [event] = expectStatus(
          await get('/api/health/servers/drifty/drift-history'),
          200,
          'drift events',
        ).json;
        expect(event.changes.map((c: any) => c.tool_name)).toEqual(
          expect.arrayContaining(['read_file', 'nul\u0000tool']),
        );
      },
    );

    it(
      'a check or scan the database fails answers a short coded error, never the SQL or its parameters',
      { timeout: 60_000 },
      async () => {
        const db = server.services.store.db;
        await db.execute(
          sql`alter table health_results add constraint spyglass_test_refuse check (server_name <> 'clean') not valid`,
        );
        try {
          const check = await post('/api/health/check', { server_name: 'clean' });
          expect(check.status).toBe(500);
          expect(check.json).toEqual({ detail: 'internal error' });
          const [scan] = expectStatus(
            await post('/api/security/scan', { server_name: 'clean' }),
            200,
            'scan',
          ).json;
          expect(scan.error).toBe(
            'health check failed: database error (SQLSTATE 23514); details are in the server log',
          );
          expect(JSON.stringify(scan)).not.toMatch(/insert into|params|Reads your notes/i);
        } finally {
          await db.execute(sql`alter table health_results drop constraint spyglass_test_refuse`);
        }
      },
    );
  });
});
