import type { Logger } from 'pino';
import type { Span } from '../model/span.ts';
import type { Db } from '../store/db.ts';
import { registerNames } from '../store/catalog-repo.ts';

/** Names remembered per process; past it the memory starts over (a repeat registration is a no-op). */
const MAX_REMEMBERED = 100_000;

type Kind = 'agent' | 'server';

/**
 * Auto-registration of unseen agents and servers (docs/ingest.md#derived-data): best effort, after the spans are
 * committed, each name at most once per process (a failed attempt is tried again next time).
 */
export class Registrar {
  /** Names seen, by project and kind: looking a span's names up allocates nothing. */
  private seen = new Map<string, Record<Kind, Set<string>>>();
  private remembered = 0;

  constructor(
    private readonly db: Db,
    private readonly logger?: Logger,
  ) {}

  /** Never throws and never delays the caller. */
  register(spans: readonly Span[]): void {
    const fresh = new Map<Set<string>, { kind: Kind; projectId: string; names: Set<string> }>();
    const note = (kind: Kind, projectId: string, name: string | null) => {
      if (!name) return;
      const known = this.namesOf(projectId)[kind];
      if (known.has(name)) return;
      // A client sending ever-new names must not grow this memory without bound.
      if (this.remembered >= MAX_REMEMBERED) {
        this.seen.clear();
        this.remembered = 0;
        return note(kind, projectId, name);
      }
      known.add(name);
      this.remembered++;
      let entry = fresh.get(known);
      if (!entry) fresh.set(known, (entry = { kind, projectId, names: new Set() }));
      entry.names.add(name);
    };
    for (const s of spans) {
      // A generic span's server is an HTTP host or a database, not an MCP server or an agent.
      if (s.spanType === 'generic') continue;
      note('agent', s.projectId, s.agentName);
      // An llm_intent's or user_message's server_name names no server or agent of its own.
      if (s.spanType === 'tool_call') note('server', s.projectId, s.serverName);
      else if (s.spanType === 'agent' || s.spanType === 'handoff')
        note('agent', s.projectId, s.serverName);
    }
    for (const { kind, projectId, names } of fresh.values()) {
      registerNames(this.db, kind, projectId, [...names]).catch((err: unknown) => {
        const known = this.seen.get(projectId)?.[kind];
        for (const name of names) if (known?.delete(name)) this.remembered--;
        this.logger?.warn(
          { err: (err as Error).message, kind, projectId },
          'auto-registration failed; will retry',
        );
      });
    }
  }

  /** Forgets the names seen for a project (it was deleted): they are registered again if they return. */
  forgetProject(projectId: string): void {
    const names = this.seen.get(projectId);
    if (!names) return;
    this.remembered -= names.agent.size + names.server.size;
    this.seen.delete(projectId);
  }

  private namesOf(projectId: string): Record<Kind, Set<string>> {
    let names = this.seen.get(projectId);
    if (!names) this.seen.set(projectId, (names = { agent: new Set(), server: new Set() }));
    return names;
  }
}
