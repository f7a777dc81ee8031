import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/** SLO and catalog writes land in the audit log with who did them (docs/auth.md#audit-log). */
const ROOT = join(import.meta.dirname, '../..');
const ADMIN = `sg_${'e'.repeat(64)}`;
let h: InProcessApp;
beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
});
afterAll(async () => h?.close());

async function ok(query: string, variables: Record<string, unknown> = {}) {
  const { data, errors } = await h.gql(query, variables, ADMIN);
  expect(errors).toBeUndefined();
  return data;
}

it('records SLO creates, changes and deletes, and catalog changes and deletes', async () => {
  const { createSlo } = await ok(
    `mutation { createSlo(input: { agentName: "planner", metric: "success_rate", threshold: 0.9 }) { sloId } }`,
  );
  const id = createSlo.sloId as string;
  await ok(
    `mutation ($id: String!) { updateSlo(sloId: $id, input: { threshold: 0.95 }) { sloId } }`,
    { id },
  );
  await ok(`mutation ($id: String!) { deleteSlo(sloId: $id) }`, { id });
  await ok(`mutation { putAgent(name: "planner", input: { owner: "team-a" }) { name } }`);
  await ok(`mutation { deleteAgent(name: "planner") }`);
  await h.services.audit.flush();
  const { auditLog } = await ok(
    `{ auditLog(first: 20) { edges { node { action resource actor result } } } }`,
  );
  const seen = auditLog.edges.map((e: { node: Record<string, string> }) => e.node);
  for (const [action, resource] of [
    ['slo.created', `slo:default/${id}`],
    ['slo.updated', `slo:default/${id}`],
    ['slo.deleted', `slo:default/${id}`],
    ['catalog.updated', 'agent:default/planner'],
    ['catalog.deleted', 'agent:default/planner'],
  ])
    expect(seen).toContainEqual(expect.objectContaining({ action, resource, result: 'success' }));
});

it('the audit log page suggests exactly the actions the server records', () => {
  const quoted = (text: string) => [...text.matchAll(/'([a-z_]+\.[a-z_]+)'/g)].map((m) => m[1]);
  const server = readFileSync(join(ROOT, 'src/audit/audit-log.ts'), 'utf8');
  const union = server.slice(
    server.indexOf('export type AuditAction'),
    server.indexOf(';', server.indexOf('export type AuditAction')),
  );
  const page = readFileSync(join(ROOT, 'ui/src/views/settings/audit.tsx'), 'utf8');
  const list = page.slice(
    page.indexOf('const ACTIONS'),
    page.indexOf('];', page.indexOf('const ACTIONS')),
  );
  expect(quoted(list).sort()).toEqual(quoted(union).sort());
});
