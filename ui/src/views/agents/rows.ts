import type { AgentsData, AgentStats, LineageEdge } from './queries.ts';

/** One line of the agent list: what the catalog, the session rollups and the lineage say of it. */
export interface AgentRow {
  name: string;
  catalogued: boolean;
  status: string | null;
  sessions: number;
  toolCalls: number;
  failedCalls: number;
  /** failedCalls / toolCalls; null without tool calls. */
  errorRate: number | null;
  costUsd: number;
  lastCallAt: string | null;
  /** Servers it called in the window, by name. */
  servers: string[];
}

export const SORTS = ['name', 'sessions', 'errors', 'cost', 'servers', 'last'] as const;
export type AgentSort = (typeof SORTS)[number];

/** The servers an agent called (lineage `calls` edges from it), most calls first. */
export function serversOf<E extends LineageEdge>(edges: readonly E[], agent: string): E[] {
  return edges
    .filter((e) => e.type === 'calls' && e.source === `agent:${agent}`)
    .sort((a, b) => b.calls - a.calls || a.target.localeCompare(b.target));
}

export const serverName = (id: string) => id.replace(/^server:/, '');

export const errorRate = (s: Pick<AgentStats, 'toolCalls' | 'failedCalls'>) =>
  s.toolCalls > 0 ? s.failedCalls / s.toolCalls : null;

/** Every agent observed in the window or catalogued (across projects, merged by name). */
export function agentRows(d: AgentsData): AgentRow[] {
  const rows = new Map<string, AgentRow>();
  const row = (name: string): AgentRow => {
    let r = rows.get(name);
    if (!r)
      rows.set(
        name,
        (r = {
          name,
          catalogued: false,
          status: null,
          sessions: 0,
          toolCalls: 0,
          failedCalls: 0,
          errorRate: null,
          costUsd: 0,
          lastCallAt: null,
          servers: [],
        }),
      );
    return r;
  };
  for (const a of d.agents) {
    const r = row(a.name);
    r.catalogued = true;
    r.status ??= a.status;
  }
  for (const s of d.agentSessionStats) {
    const r = row(s.agentName);
    Object.assign(r, {
      sessions: s.sessions,
      toolCalls: s.toolCalls,
      failedCalls: s.failedCalls,
      errorRate: errorRate(s),
      costUsd: s.estCostUsd,
      lastCallAt: s.lastCallAt,
    });
  }
  for (const e of d.lineage.edges) {
    if (e.type !== 'calls' || !e.source.startsWith('agent:')) continue;
    const r = row(e.source.slice('agent:'.length));
    const server = serverName(e.target);
    if (!r.servers.includes(server)) r.servers.push(server);
  }
  for (const r of rows.values()) r.servers.sort();
  return [...rows.values()];
}

const KEY: Record<AgentSort, (r: AgentRow) => number | string> = {
  name: (r) => r.name,
  sessions: (r) => r.sessions,
  errors: (r) => r.errorRate ?? -1,
  cost: (r) => r.costUsd,
  servers: (r) => r.servers.length,
  last: (r) => (r.lastCallAt ? Date.parse(r.lastCallAt) : 0),
};

/** Sorted by one column, ties by name. */
export function sortRows(rows: AgentRow[], by: AgentSort, descending: boolean): AgentRow[] {
  const key = KEY[by];
  const sign = descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    const c = typeof x === 'string' ? x.localeCompare(String(y)) : x - (y as number);
    return c !== 0 ? sign * c : a.name.localeCompare(b.name);
  });
}

export const formatRate = (r: number | null) => (r === null ? '—' : `${(r * 100).toFixed(1)} %`);
export const formatUsd = (n: number) => `$${n.toFixed(4)}`;
