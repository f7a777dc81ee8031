import type { Logger } from 'pino';
import type { Span } from '../model/span.ts';
import type { Db } from '../store/db.ts';
import { registerNames } from '../store/catalog-repo.ts';

/**
 * Auto-registration of unseen agents and servers (spec §4.4): best effort, after the spans are
 * committed, each name at most once per process (a failed attempt is tried again next time).
 */
/** Names remembered per process; past it the memory starts over (a repeat registration is a no-op). */
const MAX_REMEMBERED = 100_000;

export class Registrar {
  private seen = new Set<string>();

  constructor(private readonly db: Db, private readonly logger?: Logger) {}

  /** Never throws and never delays the caller. */
  register(spans: readonly Span[]): void {
    const fresh = new Map<string, { kind: 'agent' | 'server'; projectId: string; names: Set<string> }>();
    const note = (kind: 'agent' | 'server', projectId: string, name: string | null) => {
      if (!name) return;
      const key = `${kind}\0${projectId}\0${name}`;
      if (this.seen.has(key)) return;
      // A client sending ever-new names must not grow this set without bound.
      if (this.seen.size >= MAX_REMEMBERED) this.seen.clear();
      this.seen.add(key);
      const group = `${kind}\0${projectId}`;
      let entry = fresh.get(group);
      if (!entry) fresh.set(group, (entry = { kind, projectId, names: new Set() }));
      entry.names.add(name);
    };
    for (const s of spans) {
      note('agent', s.projectId, s.agentName);
      if (s.spanType === 'tool_call') note('server', s.projectId, s.serverName);
      else note('agent', s.projectId, s.serverName);
    }
    for (const { kind, projectId, names } of fresh.values()) {
      registerNames(this.db, kind, projectId, [...names]).catch((err: unknown) => {
        for (const name of names) this.seen.delete(`${kind}\0${projectId}\0${name}`);
        this.logger?.warn({ err: (err as Error).message, kind, projectId }, 'auto-registration failed; will retry');
      });
    }
  }

  /** Forgets the names seen for a project (it was deleted): they are registered again if they return. */
  forgetProject(projectId: string): void {
    for (const key of this.seen) {
      if (key.split('\0')[1] === projectId) this.seen.delete(key);
    }
  }
}
