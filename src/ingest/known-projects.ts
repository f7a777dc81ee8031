import { notFound, SpyglassError } from '../errors.ts';
import { isTransient } from '../store/db.ts';

/**
 * Ingest writes only into projects that exist: a global key naming an unknown project gets 404
 * rather than creating data nobody can manage. Existing projects are remembered for `ttlMs`, so
 * the check costs a query per project every few seconds, not per request; a project deleted
 * meanwhile in another process can still receive spans for at most that long (in this process
 * the deletion forgets it at once).
 */
export class KnownProjects {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly exists: (id: string) => Promise<boolean>,
    private readonly ttlMs = 5000,
    private readonly now: () => number = Date.now,
  ) {}

  async check(ids: Iterable<string>): Promise<void> {
    for (const id of new Set(ids)) {
      const until = this.seen.get(id);
      if (until !== undefined && until > this.now()) continue;
      if (!(await this.lookUp(id))) {
        this.seen.delete(id);
        throw notFound(
          `project ${JSON.stringify(id.slice(0, 128))} does not exist; create it first (POST /api/projects)`,
        );
      }
      if (this.seen.size >= 10_000) this.seen.clear();
      this.seen.set(id, this.now() + this.ttlMs);
    }
  }

  /** A deleted project is refused from the next request on, not after the cache expires. */
  forget(id: string): void {
    this.seen.delete(id);
  }

  /** An unreachable database is an outage like any other on the ingest path: 503, so exporters retry. */
  private async lookUp(id: string): Promise<boolean> {
    try {
      return await this.exists(id);
    } catch (err) {
      if (isTransient(err))
        throw new SpyglassError('unavailable', 'storage unavailable, retry later', {
          retryAfter: 5,
        });
      throw err;
    }
  }
}
