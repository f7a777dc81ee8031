/**
 * Reading V8 .cpuprofile files: which area a frame belongs to (our src/ files, a dependency, Node
 * internals, GC) and the hottest functions by self time over several profiles at once (a primary
 * and its workers), for the "where it goes" lines of `npm run bench`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber?: number;
}
export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export function readProfile(file: string): Profile {
  return JSON.parse(readFileSync(file, 'utf8')) as Profile;
}

const maps = new Map<string, SourceMap | null>();

/**
 * A frame of the bundle `bin/spyglass.js` runs (dist/bundle/, scripts/bundle.ts) as the file and
 * line it came from (ours or a package's), through the bundle's source maps; any other frame as it is.
 */
export function unbundled(f: CallFrame): CallFrame {
  if (!f.url.includes('/dist/bundle/')) return f;
  let map = maps.get(f.url);
  if (map === undefined) {
    const file = `${fileURLToPath(f.url)}.map`;
    map = existsSync(file)
      ? new SourceMap(JSON.parse(readFileSync(file, 'utf8')) as SourceMapPayload)
      : null;
    maps.set(f.url, map);
  }
  const entry = map?.findEntry(f.lineNumber, f.columnNumber ?? 0);
  if (!entry || !('originalSource' in entry)) return f;
  return { ...f, url: new URL(entry.originalSource, f.url).href, lineNumber: entry.originalLine };
}
type SourceMapPayload = ConstructorParameters<typeof SourceMap>[0];

/** `src/ingest/writer.ts`, `fastify`, `node:net`, `(garbage collector)`, ... */
export function area(frame: CallFrame): string {
  const f = unbundled(frame);
  const name = f.functionName;
  if (
    name === '(idle)' ||
    name === '(program)' ||
    name === '(garbage collector)' ||
    name === '(root)'
  )
    return name;
  const url = f.url;
  if (!url) return name.startsWith('(') ? name : '(native / builtin)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  // esbuild's own helpers and module bodies: no source line of their own.
  if (url.includes('/dist/bundle/')) return '(bundle)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  // A build's dist/ (e.g. `--server-bin` of another checkout) reads as the src/ it came from.
  const dist = url.lastIndexOf('/dist/');
  if (dist >= 0) return `src/${url.slice(dist + 6).replace(/\.js$/, '.ts')}`;
  return url.replace(/^file:\/\//, '');
}

export interface HotFunction {
  /** `name  area:line` */
  name: string;
  selfUs: number;
  /** Share of the busy (non-idle) time of all the profiles together. */
  share: number;
}

/**
 * The `n` functions with the most self time summed over `files`, and the busy time they share.
 * `window`: only samples taken between these CLOCK_MONOTONIC times (µs, `process.hrtime` / 1000 in
 * any process of the machine: V8 stamps samples with the same clock), e.g. the load without the
 * server's start-up and shutdown.
 */
export function topFunctions(
  files: readonly string[],
  n: number,
  window?: { fromUs: number; toUs: number },
): { busyUs: number; top: HotFunction[] } {
  const fns = new Map<string, number>();
  let busyUs = 0;
  for (const file of files) {
    const p = readProfile(file);
    const byId = new Map(p.nodes.map((node) => [node.id, node]));
    let at = p.startTime;
    for (let i = 0; i < p.samples.length; i++) {
      const us = p.timeDeltas[i] ?? 0;
      at += us;
      if (window && (at < window.fromUs || at > window.toUs)) continue;
      const node = byId.get(p.samples[i] as number);
      if (!node) continue;
      const a = area(node.callFrame);
      if (a === '(idle)') continue;
      busyUs += us;
      const f = unbundled(node.callFrame);
      const key = `${f.functionName || '(anonymous)'}  ${a}${f.url ? `:${f.lineNumber + 1}` : ''}`;
      fns.set(key, (fns.get(key) ?? 0) + us);
    }
  }
  const top = [...fns]
    .sort((x, y) => y[1] - x[1])
    .slice(0, n)
    .map(([name, selfUs]) => ({ name, selfUs, share: busyUs > 0 ? selfUs / busyUs : 0 }));
  return { busyUs, top };
}
