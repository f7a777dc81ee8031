import {
  OWASP_TITLES,
  type ServerKey,
  type StoredFinding,
  type StoredScan,
} from '../model/security-scan.ts';
import { describeRange } from '../model/int-range.ts';
import { SCAN_HISTORY_LIMIT, SCAN_HISTORY_OFFSET } from '../security/scan-service.ts';
import { builder } from './builder.ts';
import { HealthResultRef } from './health.ts';
import { loaderFor, loaderKind } from './loaders.ts';

/** Security scans (docs/security.md#results-history-and-pins, docs/api.md#rest): the same service, roles and project scoping as /api/security. */

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
  description: 'One security scan of one server (docs/security.md#results-history-and-pins)',
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
const latestScans = loaderKind<ServerKey, StoredScan>({
  batch: (ctx, keys) => ctx.services.security.latestFor(ctx.principal, keys),
  keyOf: (k) => `${k.projectId}\u0000${k.serverName}`,
});

builder.objectField(HealthResultRef, 'securityScan', (t) =>
  t.field({
    type: SecurityScanRef,
    nullable: true,
    description:
      "The server's latest security scan (GET /api/security/servers/{name}); null when never scanned",
    resolve: (r, _a, ctx) =>
      loaderFor(ctx, latestScans).load({ projectId: r.projectId, serverName: r.serverName }),
  }),
);

builder.queryField('securityScan', (t) =>
  t.field({
    type: SecurityScanRef,
    description: "One server's latest security scan; not found when it was never scanned",
    args: { name: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.security.latest(ctx.principal, a.name, a.projectId),
  }),
);

builder.queryField('securityScanHistory', (t) =>
  t.field({
    type: [SecurityScanRef],
    description: "A server's scans, newest first (GET /api/security/servers/{name}/history)",
    args: {
      name: t.arg.string({ required: true }),
      limit: t.arg.int({ required: false, description: describeRange(SCAN_HISTORY_LIMIT) }),
      offset: t.arg.int({ required: false, description: describeRange(SCAN_HISTORY_OFFSET) }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.security.history(ctx.principal, a.name, {
        projectId: a.projectId,
        limit: a.limit,
        offset: a.offset,
      }),
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
    resolve: (_r, a, ctx) =>
      ctx.services.security.scan(ctx.principal, {
        projectId: a.projectId,
        serverName: a.serverName ?? undefined,
      }),
  }),
);
