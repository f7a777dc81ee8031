import type { ServersData } from './queries.ts';

/** One line of the server list: a configured server's latest result, or a server only observed. */
export interface ServerRow {
  name: string;
  /** Checked by Spyglass (spyglass.yaml or a catalog entry with a URL); false: only seen in spans. */
  configured: boolean;
  status: string;
  grade: string | null;
  score: number | null;
  checkedAt: string | null;
  latencyMs: number | null;
  toolsCount: number | null;
  drift: boolean;
  error: string | null;
}

export const STATUSES = ['up', 'degraded', 'down', 'stale', 'unknown'] as const;
export const GRADES = ['A+', 'A', 'B', 'C', 'D', 'F'] as const;
export const SORTS = ['name', 'status', 'grade', 'checked', 'latency', 'tools', 'drift'] as const;
export type SortKey = (typeof SORTS)[number];

/** Configured servers with their latest check, then catalog names no check covers (status unknown, graded from spans). */
export function mergeRows(d: ServersData): ServerRow[] {
  const rows = new Map<string, ServerRow>();
  for (const h of d.healthServers)
    rows.set(h.serverName, {
      name: h.serverName,
      configured: true,
      status: h.status,
      grade: h.scorecard?.grade ?? null,
      score: h.scorecard?.score ?? null,
      checkedAt: h.checkedAt,
      latencyMs: h.latencyMs,
      toolsCount: h.toolsCount,
      drift: h.schemaDrift,
      error: h.error,
    });
  for (const s of d.servers)
    if (!rows.has(s.name))
      rows.set(s.name, {
        name: s.name,
        configured: false,
        status: 'unknown',
        grade: s.scorecard?.grade ?? null,
        score: s.scorecard?.score ?? null,
        checkedAt: null,
        latencyMs: null,
        toolsCount: null,
        drift: false,
        error: null,
      });
  return [...rows.values()];
}

const rank = (list: readonly string[], v: string | null) => {
  const i = v === null ? -1 : list.indexOf(v);
  return i < 0 ? list.length : i;
};

/** A comparable value per column; missing values sort last in ascending order. */
function key(r: ServerRow, sort: SortKey): string | number {
  switch (sort) {
    case 'name':
      return r.name.toLowerCase();
    case 'status':
      // Worst first: down, degraded, stale, unknown, up.
      return rank(['down', 'degraded', 'stale', 'unknown', 'up'], r.status);
    case 'grade':
      return rank(GRADES, r.grade);
    case 'checked':
      return r.checkedAt ? -Date.parse(r.checkedAt) : Infinity;
    case 'latency':
      return r.latencyMs ?? Infinity;
    case 'tools':
      return r.toolsCount === null ? Infinity : -r.toolsCount;
    case 'drift':
      return r.drift ? 0 : 1;
  }
}

/** Filtered by status and grade, sorted by `sort` (ties by name), `desc` reversing the order. */
export function viewRows(
  rows: ServerRow[],
  f: { status: string; grade: string; sort: SortKey; desc: boolean },
): ServerRow[] {
  const out = rows.filter(
    (r) => (!f.status || r.status === f.status) && (!f.grade || r.grade === f.grade),
  );
  out.sort((a, b) => {
    const ka = key(a, f.sort);
    const kb = key(b, f.sort);
    const c = ka < kb ? -1 : ka > kb ? 1 : a.name.localeCompare(b.name);
    return f.desc ? -c : c;
  });
  return out;
}
