import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import type { Db } from '../store/db.ts';
import { notFound } from '../errors.ts';
import type { HealthService } from '../health/health-service.ts';
import { targetKey } from '../health/targets.ts';
import type { CheckTarget } from '../model/health.ts';
import { findServerProjects, loadScoreInputs } from '../store/scoring-repo.ts';
import { latestScanSummaries, type ServerKey } from '../store/security-repo.ts';
import { hasAuthConfigured } from './auth-configured.ts';
import { computeScorecard, type Scorecard } from './scorecard.ts';

/**
 * Scorecards (docs/scorecards.md) of configured, catalogued or observed servers: two
 * aggregate statements for any number of servers, then the pure formulas of this folder.
 */
export class ScoringService {
  constructor(private readonly deps: { db: Db; health: Pick<HealthService, 'targets'> }) {}

  /** Scorecards of every configured server of a project (none named = every project the caller sees), in target order. */
  async list(by: Principal, project?: string | null, now = new Date()): Promise<Scorecard[]> {
    const projectId = scopeProject(by, project);
    const targets = await this.deps.health.targets(projectId);
    return this.cards(
      targets.map((t) => ({ projectId: t.projectId, serverName: t.name })),
      now,
      targets,
    );
  }

  /** One server's scorecard; 404 when it is neither configured nor catalogued nor has any data. */
  async get(
    by: Principal,
    name: string,
    project?: string | null,
    now = new Date(),
  ): Promise<Scorecard> {
    const projectId = scopeProject(by, project);
    const targets = await this.deps.health.targets(projectId);
    const target = targets.find((t) => t.name === name);
    const found = target?.projectId ?? (await findServerProjects(this.deps.db, projectId, name))[0];
    if (found === undefined) throw notFound(`no server ${name}`);
    const [card] = await this.cards([{ projectId: found, serverName: name }], now, targets);
    if (!card) throw notFound(`no server ${name}`);
    return card;
  }

  /** Scorecards of the given servers (GraphQL batches); servers outside the caller's project are left out. */
  forKeys(by: Principal, keys: readonly ServerKey[], now = new Date()): Promise<Scorecard[]> {
    enforce(by, 'read');
    const scope = scopeProject(by, null);
    return this.cards(scope === null ? keys : keys.filter((k) => k.projectId === scope), now);
  }

  /** `targets` tells which servers are configured and how (authentication). */
  private async cards(
    keys: readonly ServerKey[],
    now = new Date(),
    targets?: readonly CheckTarget[],
  ): Promise<Scorecard[]> {
    if (keys.length === 0) return [];
    const known = targets ?? (await this.deps.health.targets(null));
    const byKey = new Map(known.map((t) => [targetKey(t.projectId, t.name), t]));
    const [inputs, scans] = await Promise.all([
      loadScoreInputs(this.deps.db, keys, now),
      latestScanSummaries(this.deps.db, keys, now),
    ]);
    const scanOf = new Map(scans.map((s) => [targetKey(s.projectId, s.serverName), s]));
    return inputs.map((i) => {
      const key = targetKey(i.projectId, i.serverName);
      const scan = scanOf.get(key) ?? null;
      const target = byKey.get(key);
      // An unconfigured server's authentication is unknown: only a scan finding says it has none.
      const noAuth = target ? !hasAuthConfigured(target) : (scan?.noAuth ?? 0) > 0;
      return computeScorecard(i, scan, noAuth, now);
    });
  }
}
