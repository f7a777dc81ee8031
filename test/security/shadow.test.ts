import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shadowServersCheck } from '../../src/security/shadow-servers.ts';
import { registerNames } from '../../src/store/catalog-repo.ts';
import { execute } from '../../src/store/db.ts';
import { unconfiguredServersQuery } from '../../src/store/shadow-repo.ts';
import { call, createProject, expectStatus } from '../helpers/auth.ts';
import { backends } from '../helpers/backends.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';
import { tempDir, writeConfig } from '../health/helpers.ts';

/**
 * OWASP-MCP-09 over a real store on each back end: spans arrive through the ingest API, the
 * catalog through its API and the registrar's own function, and the check reads them back.
 */
const ADMIN = `sg_${'9'.repeat(64)}`;
const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date();
const ago = (ms: number) => new Date(NOW.getTime() - ms);

function span(serverName: string, startedAt: Date, over: Record<string, unknown> = {}) {
  return nativeSpan({
    server_name: serverName,
    started_at: startedAt.toISOString(),
    ended_at: new Date(startedAt.getTime() + 5).toISOString(),
    ...over,
  });
}

describe.each(backends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available ? 'shadow servers' : `shadow servers (skipped: no ${name} in this run)`,
    () => {
      let server: InProcessApp;
      let dir: string;

      beforeAll(async () => {
        dir = tempDir();
        const config = writeConfig(dir, {
          monitor: { enabled: false },
          servers: [{ name: 'filesystem', transport: 'stdio', command: 'true' }],
        });
        server = await startInProcessApp({
          ...(await env()),
          SPYGLASS_CONFIG: config,
          SPYGLASS_API_KEYS: ADMIN,
          SPYGLASS_RATE_LIMITS: 'off',
        });
      }, 180_000);

      afterAll(async () => {
        await server?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      it('names the servers agents used in 7 days that nobody configured or catalogued, with count and last seen', async () => {
        const db = server.services.store.db;
        await createProject(server, ADMIN, 'other');
        // Both were auto-registered from spans (the registrar's own function); an operator then edited
        // `approved` through the API, which marks it as known. `scraper` stays auto-only.
        await registerNames(db, 'server', 'default', ['approved', 'scraper']);
        expectStatus(
          await call(server, 'PUT', '/api/servers/metadata/approved', {
            key: ADMIN,
            body: { owner: 'platform team' },
          }),
          200,
          'catalog',
        );
        const lastSeen = ago(2 * 60 * 60 * 1000);
        const spans = [
          span('filesystem', ago(60_000)),
          span('approved', ago(60_000)),
          span('scraper', ago(3 * DAY)),
          span('scraper', ago(6 * DAY), { status: 'error', error: 'boom' }),
          span('scraper', lastSeen),
          span('pastebin-mcp', ago(DAY)),
          span('retired', ago(8 * DAY)),
          // Agent spans carry the agent in server_name: not a server.
          span('planner', ago(60_000), { span_type: 'agent' }),
          span('other-only', ago(60_000), { project_id: 'other' }),
        ];
        expectStatus(
          await call(server, 'POST', '/api/traces/spans', { key: ADMIN, body: spans }),
          202,
          'ingest',
        );

        const found = await shadowServersCheck({
          db,
          projectId: 'default',
          configured: ['filesystem'],
          now: NOW,
        });
        expect(found.map((f) => f.serverName)).toEqual(['pastebin-mcp', 'scraper']);
        const scraper = found.find((f) => f.serverName === 'scraper')?.finding;
        expect(scraper).toMatchObject({
          rule: 'shadow.unconfigured',
          category: 'OWASP-MCP-09',
          severity: 'medium',
          kind: 'owasp',
          evidence: `3 tool calls, last seen ${lastSeen.toISOString()}`,
        });
        expect(scraper?.description).toContain('3 tool calls to server scraper in the last 7 days');

        // Configuring it (here: naming it among the configured servers) ends the finding.
        expect(
          await shadowServersCheck({
            db,
            projectId: 'default',
            configured: ['filesystem', 'scraper', 'pastebin-mcp'],
            now: NOW,
          }),
        ).toEqual([]);
        expect(
          (await shadowServersCheck({ db, projectId: 'other', configured: [], now: NOW })).map(
            (f) => f.serverName,
          ),
        ).toEqual(['other-only']);
      });

      it('reads a large spans table through spans_server_time_idx, never the whole table', async () => {
        const db = server.services.store.db;
        // 60 000 tool calls to 20 configured servers and 600 to three unconfigured ones, over 30 days.
        await execute(
          db,
          sql`insert into spans (project_id, span_id, span_type, server_name, tool_name, status, started_at, ended_at, latency_ms)
        select 'bulk', 'b' || g, 'tool_call', case when g % 100 = 0 then 'shadow-' || (g % 3) else 'configured-' || (g % 20) end, 't', 'success',
               now() - g * interval '43 seconds', now() - g * interval '43 seconds', 1
        from generate_series(1, 60600) g`,
        );
        await execute(db, sql`analyze spans`);
        const configured = Array.from({ length: 20 }, (_, i) => `configured-${i}`);
        const query = unconfiguredServersQuery('bulk', configured, ago(7 * DAY), NOW);
        const { rows } = await execute<Record<string, string>>(db, sql`explain ${query}`);
        const plan = rows.map((r) => Object.values(r)[0]).join('\n');
        // Spans are partitioned by day: each partition's copy of the index carries its own name.
        expect(plan).toMatch(
          /spans_server_time_idx|spans_(p\d{8}|default)_project_id_server_name_started_at_idx/,
        );
        // A sequential scan may read only a partition of a few rows (just after midnight, today's
        // holds the minutes since 00:00: a clean-clone run at 00:05 met it), never under 1% of the
        // bulk; the index serves the partitions that hold it.
        const scanned = [...plan.matchAll(/Seq Scan on (spans\w*)/g)].map((m) => m[1] as string);
        for (const table of scanned) {
          const { rows: count } = await execute<{ n: number }>(
            db,
            sql`select count(*)::int as n from ${sql.identifier(table)}`,
          );
          expect(count[0]?.n ?? 0, `sequential scan on ${table}`).toBeLessThan(60_600 / 100);
        }
        const found = await shadowServersCheck({ db, projectId: 'bulk', configured, now: NOW });
        expect(found.map((f) => f.serverName)).toEqual(['shadow-0', 'shadow-1', 'shadow-2']);
      });
    },
  );
});
