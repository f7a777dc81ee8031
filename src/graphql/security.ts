import { scopeProject } from '../auth/principal.ts';
import { OWASP_TITLES } from '../security/types.ts';
import type { ServerKey, StoredScan } from '../store/security-repo.ts';
import { builder, requireAdmin, type Context } from './builder.ts';
import { HealthResultRef, bounded } from './health.ts';

/** Security scans (docs/security.md#results-history-and-pins, docs/api.md#rest): the same service, roles and project scoping as /api/security. */

type StoredFinding = StoredScan['findings'][number];

const FindingRef = builder.objectRef<StoredFinding>('SecurityFinding').implement({
  fields: (t) => ({
    severity: t.exposeString('severity', { description: 'critical, high, medium, low or info' }),
    category: t.exposeString('category', {
      description: 'OWASP-MCP-<nn>, or another family such as CVE',
    }),
    owaspTitle: t.string({ nullable: true, resolve: (f) => OWASP_TITLES[f.category] ?? null }),
    rule: t.exposeString('rule', { description: 'the stable rule id listed in docs/security.md' }),
    kind: t.exposeString('kind', {
      description: 'what the scorecard counts it as: cve, poisoning, no_auth, owasp or other',
    }),
    title: t.exposeString('title'),
    description: t.exposeString('description'),
    remediation: t.exposeString('remediation'),
    toolName: t.exposeString('toolName', { nullable: true }),
    cveId: t.exposeString('cveId', { nullable: true }),
    location: t.exposeString('location', {
      nullable: true,
      description: "where in the server's surface, e.g. env.OPENAI_API_KEY",
    }),
    evidence: t.exposeString('evidence', {
      nullable: true,
      description: 'a short excerpt of what matched, secrets masked',
    }),
  }),
});

export const SecurityScanRef = builder.objectRef<StoredScan>('SecurityScan').implement({
  description: 'One security scan of one server (spec §2.6)',
  fields: (t) => ({
    id: t.exposeString('id'),
    serverName: t.exposeString('serverName'),
    projectId: t.exposeString('projectId'),
    scannedAt: t.expose('scannedAt', { type: 'DateTime' }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'why the server could not be observed; config-based findings are still listed',
    }),
    findingsCount: t.exposeInt('findingsCount'),
    criticalCount: t.exposeInt('criticalCount'),
    highCount: t.exposeInt('highCount'),
    highestSeverity: t.exposeString('highestSeverity', {
      description: 'critical, high, medium, low, info or none',
    }),
    findings: t.field({ type: [FindingRef], resolve: (s) => s.findings }),
  }),
});

/** One query for all the servers a response lists (like scorecards). */
const batches = new WeakMap<
  Context,
  { keys: Map<string, ServerKey>; scans: Promise<Map<string, StoredScan>> }
>();
const idOf = (k: ServerKey) => `${k.projectId}\u0000${k.serverName}`;

function loadScan(ctx: Context, key: ServerKey): Promise<StoredScan | null> {
  let batch = batches.get(ctx);
  if (!batch) {
    const keys = new Map<string, ServerKey>();
    const scans = new Promise<StoredScan[]>((resolve, reject) => {
      setImmediate(() => {
        batches.delete(ctx);
        ctx.services.security.latestFor([...keys.values()]).then(resolve, reject);
      });
    });
    batch = { keys, scans: scans.then((list) => new Map(list.map((s) => [idOf(s), s]))) };
    batches.set(ctx, batch);
  }
  batch.keys.set(idOf(key), key);
  return batch.scans.then((m) => m.get(idOf(key)) ?? null);
}

builder.objectField(HealthResultRef, 'securityScan', (t) =>
  t.field({
    type: SecurityScanRef,
    nullable: true,
    description:
      "The server's latest security scan (GET /api/security/servers/{name}); null when never scanned",
    resolve: (r, _a, ctx) => loadScan(ctx, { projectId: r.projectId, serverName: r.serverName }),
  }),
);

builder.queryField('securityScan', (t) =>
  t.field({
    type: SecurityScanRef,
    description: "One server's latest security scan; not found when it was never scanned",
    args: { name: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) =>
      ctx.services.security.latest(scopeProject(ctx.principal, a.projectId), a.name),
  }),
);

builder.queryField('securityScanHistory', (t) =>
  t.field({
    type: [SecurityScanRef],
    description: "A server's scans, newest first (GET /api/security/servers/{name}/history)",
    args: {
      name: t.arg.string({ required: true }),
      limit: t.arg.int({ required: false }),
      offset: t.arg.int({ required: false }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.security.history(
        scopeProject(ctx.principal, a.projectId),
        a.name,
        bounded('limit', a.limit, 10, 1, 100),
        bounded('offset', a.offset, 0, 0, 10_000),
      ),
  }),
);

builder.mutationField('runSecurityScan', (t) =>
  t.field({
    type: [SecurityScanRef],
    description:
      'Scans configured servers now (POST /api/security/scan): every one, or only serverName; admin only',
    args: {
      serverName: t.arg.string({ required: false }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) => {
      requireAdmin(ctx);
      return ctx.services.security.scan(
        scopeProject(ctx.principal, a.projectId),
        a.serverName ?? undefined,
      );
    },
  }),
);
