/**
 * What the read benchmarks share (bench/read-path.ts, bench/read-fresh.ts): the server they start,
 * the endpoints they ask with their targets, one timed GET, and latency percentiles.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config/load-config.ts';
import { startServer, type RunningServer } from '../src/main.ts';
import { startPgCluster } from '../test/helpers/pg-cluster.ts';

export interface LatencyStats {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

export type Log = (msg: string) => void;

export interface Case {
  name: string;
  /** false: extra endpoint, measured but not part of the p95 target. */
  target?: boolean;
  /** Paths to request in rotation. */
  paths: string[];
  /** Items in a response, for a sanity check of the first one. */
  count: (body: unknown) => number;
  /** Expected items for path i, when known (otherwise: at least one). */
  expect?: (i: number) => number;
}

/**
 * startBenchServer on `backend`: on PostgreSQL in a throwaway cluster of its own (database `name`),
 * stopped with the other cleanups.
 */
export async function startBenchServerOn(
  backend: 'pglite' | 'postgres',
  name: string,
  cleanups: (() => Promise<unknown>)[],
): Promise<RunningServer> {
  let url: string | undefined;
  if (backend === 'postgres') {
    const cluster = await startPgCluster();
    cleanups.push(() => cluster.stop());
    url = await cluster.createDatabase(name);
  }
  return startBenchServer(url, cleanups);
}

/**
 * The server on PostgreSQL at `url`, or on PGlite in a temp data dir without one (in `pgliteDir`,
 * kept, when given).
 */
export async function startBenchServer(
  url: string | undefined,
  cleanups: (() => Promise<unknown>)[],
  pgliteDir?: string,
): Promise<RunningServer> {
  const dir = pgliteDir ?? mkdtempSync(join(tmpdir(), 'spyglass-read-bench-'));
  if (!pgliteDir) cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  // cwd = the temp dir, so a spyglass.yaml in the working directory is not picked up.
  const config = loadConfig(
    {
      ...(url ? { SPYGLASS_DATABASE_URL: url } : {}),
      SPYGLASS_PORT: '0',
      SPYGLASS_GRPC_PORT: '0',
      SPYGLASS_RATE_LIMITS: 'off',
      SPYGLASS_DATA_DIR: dir,
      SPYGLASS_HOST: '127.0.0.1',
    },
    dir,
  );
  const server = await startServer(config, pino({ level: 'error' }, pino.destination(2)));
  cleanups.push(server.stop);
  return server;
}

export interface Target {
  projectId: string;
  id: string;
  spans: number;
}

/** What the endpoints are asked about. */
export interface Targets {
  treeSessions: Target[];
  traces: Target[];
  agents: string[];
  projects: string[];
}

/** Cursors of pages 2…n+1 of a sessions listing (followed from page 1). */
export async function walkCursors(base: string, query: string, pages: number): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const res: Response = await fetch(
      `${base}/api/agents/sessions?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { signal: AbortSignal.timeout(30_000) },
    );
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`sessions listing returned ${res.status}`);
    cursor = res.headers.get('x-next-cursor');
    if (!cursor) break;
    out.push(cursor);
  }
  if (out.length === 0) throw new Error('the sessions listing returned no next cursor');
  return out;
}

export function buildCases(t: Targets, cursors: string[]): Case[] {
  const arr = (b: unknown) => (Array.isArray(b) ? b.length : -1);
  const treeNodes = (b: unknown): number => {
    const count = (nodes: { children?: unknown[] }[]): number =>
      nodes.reduce((n, x) => n + 1 + count((x.children ?? []) as { children?: unknown[] }[]), 0);
    const spans = (b as { spans?: unknown[] }).spans;
    return Array.isArray(spans) ? count(spans as { children?: unknown[] }[]) : -1;
  };
  const lineage = (b: unknown) => {
    const l = b as { nodes?: unknown[]; edges?: unknown[] };
    return (l.nodes?.length ?? -1) + (l.edges?.length ?? 0);
  };
  const q = encodeURIComponent;
  return [
    {
      name: 'sessions list (24 h, limit 50)',
      paths: ['/api/agents/sessions?limit=50'],
      count: arr,
    },
    {
      name: 'sessions list, project-scoped',
      paths: t.projects.map((p) => `/api/agents/sessions?project_id=${q(p)}&limit=50`),
      count: arr,
    },
    {
      name: 'sessions list by agent_name',
      paths: t.agents.map((a) => `/api/agents/sessions?agent_name=${q(a)}&limit=50`),
      count: arr,
    },
    {
      name: 'sessions list, next page (cursor)',
      paths: cursors.map((c) => `/api/agents/sessions?limit=50&cursor=${q(c)}`),
      count: arr,
    },
    {
      name: 'session tree (200 spans)',
      paths: t.treeSessions.map((s) => `/api/agents/sessions/${q(s.id)}`),
      count: treeNodes,
      expect: () => 200,
    },
    {
      name: 'session tree (200 spans), project-scoped',
      paths: t.treeSessions.map(
        (s) => `/api/agents/sessions/${q(s.id)}?project_id=${q(s.projectId)}`,
      ),
      count: treeNodes,
      expect: () => 200,
    },
    { name: 'lineage (24 h)', paths: ['/api/agents/lineage'], count: lineage },
    {
      name: 'lineage (24 h), project-scoped',
      paths: t.projects.map((p) => `/api/agents/lineage?project_id=${q(p)}`),
      count: lineage,
    },
    {
      name: 'spans by trace',
      paths: t.traces.map((x) => `/api/traces/spans?trace_id=${q(x.id)}`),
      count: arr,
      expect: (i) => (t.traces[i] as Target).spans,
    },
    {
      name: 'spans by trace, project-scoped',
      paths: t.traces.map(
        (x) => `/api/traces/spans?trace_id=${q(x.id)}&project_id=${q(x.projectId)}`,
      ),
      count: arr,
      expect: (i) => (t.traces[i] as Target).spans,
    },
    // Extras (not in the issue's list): the spans explorer's default page and its agent filter.
    {
      name: 'spans list, newest 100 (extra)',
      target: false,
      paths: ['/api/traces/spans?limit=100'],
      count: arr,
      expect: () => 100,
    },
    {
      name: 'spans list, newest 100, project-scoped (extra)',
      target: false,
      paths: t.projects.map((p) => `/api/traces/spans?limit=100&project_id=${q(p)}`),
      count: arr,
      expect: () => 100,
    },
    {
      name: 'spans list by agent_name, project-scoped (extra)',
      target: false,
      paths: t.agents.map(
        (a) => `/api/traces/spans?limit=100&project_id=default&agent_name=${q(a)}`,
      ),
      count: arr,
    },
  ];
}

/**
 * One timed GET: from the request to the body's last byte. Decoding the body into a string is the
 * client's work after that (a browser's, in a process of its own), not the server's: it is left
 * out of the time and done only when a caller reads `body`. Done in the timed part, as before
 * 2026-11-27 17:55 UTC, it was 1-2 ms of a 207 KB session tree's time (the text is not all ASCII,
 * so TextDecoder makes a two-byte string) and its 400 KB of garbage were the server's heap's.
 */
export async function get(
  base: string,
  path: string,
  signal?: AbortSignal,
): Promise<{ ms: number; status: number; bytes: Buffer; readonly body: string }> {
  const t = performance.now();
  const res = await fetch(base + path, {
    signal: signal
      ? AbortSignal.any([signal, AbortSignal.timeout(30_000)])
      : AbortSignal.timeout(30_000),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - t;
  return {
    ms,
    status: res.status,
    bytes,
    get body() {
      return bytes.toString('utf8');
    },
  };
}

export function stats(xs: number[]): LatencyStats {
  const s = [...xs].sort((a, b) => a - b);
  const pct = (p: number) =>
    s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
  const r = (n: number) => Math.round(n * 100) / 100;
  return {
    n: s.length,
    p50: r(pct(50)),
    p95: r(pct(95)),
    p99: r(pct(99)),
    mean: r(s.reduce((a, b) => a + b, 0) / (s.length || 1)),
    max: r(s[s.length - 1] ?? Number.NaN),
  };
}
