/**
 * The dashboard row of `npm run bench` (`-- --ui` runs only it): dist/ui in Debian's Chromium
 * (playwright-core, /usr/bin/chromium) against a real server child process on PGlite, seeded
 * through native ingest, rate limits off (the bench is one client far past any per-client limit).
 * Figures come from the Chromium performance timeline (bench/ui-probe.ts) and CDP heap usage.
 * Pages still showing the placeholder are skipped with a "page not built" line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { nativeSpan } from '../test/helpers/spans.ts';
import { startServerProc } from './server-proc.ts';
import { PROBE_SCRIPT, type PagePerf } from './ui-probe.ts';

const DIST_UI = join(import.meta.dirname, '../dist/ui');
const CHROMIUM = process.env.SPYGLASS_CHROMIUM ?? '/usr/bin/chromium';
const NOT_BUILT = 'This page is not built yet';

export interface UiBenchResult {
  initialGzipBytes: number;
  initialFiles: { file: string; rawBytes: number; gzipBytes: number }[];
  /** Every asset of dist/ui, gzip (lazy chunks and workers included). */
  allAssetsGzipBytes: number;
  overview: {
    firstRenderMs: number;
    fcpMs: number;
    lcpMs: number;
    lastGraphqlMs: number;
    longestTaskMs: number;
  }[];
  session:
    | { skipped: string }
    | {
        spans: number;
        small: { afterDataMs: number; firstRenderMs: number };
        large: { afterDataMs: number; firstRenderMs: number };
        scrollLongestTaskMs: number;
        scrollLongTasks: number;
        idleLongestTaskMs: number;
      };
  live:
    | { skipped: string }
    | {
        spansPerSec: number;
        seconds: number;
        spansSent: number;
        idle: { longestTaskMs: number; longTasksOver100: number; heapMb: number };
        load: {
          longestTaskMs: number;
          longTasksOver100: number;
          heapStartMb: number;
          heapEndMb: number;
        };
      };
}

/** The JS and CSS index.html loads before anything else (entry, modulepreloads, stylesheets). */
export function initialAssets(): UiBenchResult['initialFiles'] {
  const html = readFileSync(join(DIST_UI, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.(?:js|css))"/g)].map(
    (m) => m[1] as string,
  );
  return [...new Set(refs)].map((file) => {
    const raw = readFileSync(join(DIST_UI, file));
    return { file, rawBytes: raw.length, gzipBytes: gzipSync(raw, { level: 9 }).length };
  });
}

function allAssetsGzip(): number {
  return readdirSync(join(DIST_UI, 'assets'))
    .filter((f) => /\.(js|css)$/.test(f))
    .reduce(
      (a, f) => a + gzipSync(readFileSync(join(DIST_UI, 'assets', f)), { level: 9 }).length,
      0,
    );
}

const perf = (page: Page) =>
  page.evaluate(() => (window as unknown as { __perf: PagePerf }).__perf);
const longest = (tasks: PagePerf['longtasks'], from = 0, to = Infinity) =>
  Math.max(0, ...tasks.filter(([s]) => s >= from && s <= to).map(([, d]) => d));
const count100 = (tasks: PagePerf['longtasks'], from = 0, to = Infinity) =>
  tasks.filter(([s, d]) => s >= from && s <= to && d > 100).length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(base: string, spans: unknown[]): Promise<void> {
  const res = await fetch(`${base}/api/traces/spans`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spans),
  });
  if (res.status >= 300) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
}

/** A session of `n` spans: a root agent span, agent turns of up to 100 tool calls each, over 10 minutes. */
function session(id: string, n: number): Record<string, unknown>[] {
  const end = Date.now() - 5_000;
  const start = end - 10 * 60_000;
  const step = (end - start) / n;
  const at = (i: number, len = step * 0.8) => ({
    started_at: new Date(start + i * step).toISOString(),
    ended_at: new Date(start + i * step + len).toISOString(),
  });
  const out = [
    nativeSpan({
      span_id: `${id}-root`,
      session_id: id,
      span_type: 'agent',
      tool_name: 'plan',
      ...at(0, end - start),
    }),
  ];
  let turn = '';
  for (let i = 1; i < n; i++) {
    if ((i - 1) % 100 === 0) {
      turn = `${id}-turn-${i}`;
      out.push(
        nativeSpan({
          span_id: turn,
          parent_span_id: `${id}-root`,
          session_id: id,
          span_type: 'agent',
          tool_name: 'turn',
          ...at(i, step * 100),
        }),
      );
      continue;
    }
    out.push(
      nativeSpan({
        span_id: `${id}-${i}`,
        parent_span_id: turn,
        session_id: id,
        tool_name: `tool_${i % 7}`,
        status: i % 50 === 0 ? 'error' : 'success',
        error: i % 50 === 0 ? 'failed' : null,
        output_result: i % 50 === 0 ? null : '"ok"',
        ...at(i),
      }),
    );
  }
  return out;
}

async function openProbed(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(PROBE_SCRIPT);
  const page = await context.newPage();
  await page.goto(url);
  return { page, context };
}

/** Waits for a watched selector's first frame, or the placeholder: the time, or null when not built. */
async function firstRender(
  page: Page,
  name: 'overview' | 'tree',
  selector: string,
): Promise<number | null> {
  const placeholder = page.getByText(NOT_BUILT);
  await page.locator(selector).or(placeholder).first().waitFor({ timeout: 30_000 });
  if (await placeholder.count()) return null;
  await page.waitForFunction(
    (n) => ((window as unknown as { __perf: PagePerf }).__perf.firstSeen[n] ?? -1) > 0,
    name,
  );
  return (await perf(page)).firstSeen[name] as number;
}

export async function runUiBench(
  o: { overviewRuns: number; liveSeconds: number; liveRate: number; sessionSpans: number },
  progress: (msg: string) => void,
): Promise<UiBenchResult> {
  const initialFiles = initialAssets();
  const server = await startServerProc({ rateLimits: 'off' });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  try {
    const base = server.httpUrl;
    progress(`ui: seeding overview data, a 20-span and a ${o.sessionSpans}-span session`);
    const now = Date.now();
    await post(
      base,
      Array.from({ length: 600 }, (_, i) =>
        nativeSpan({
          session_id: `ui-bench-${i % 30}`,
          status: i % 17 === 0 ? 'error' : 'success',
          started_at: new Date(now - i * 3_000).toISOString(),
          ended_at: new Date(now - i * 3_000 + 40).toISOString(),
        }),
      ),
    );
    await post(base, session('ui-bench-small', 20));
    const big = session('ui-bench-large', o.sessionSpans);
    for (let i = 0; i < big.length; i += 500) await post(base, big.slice(i, i + 500));

    progress(`ui: overview first render, ${o.overviewRuns} cold loads`);
    const overview: UiBenchResult['overview'] = [];
    for (let i = 0; i < o.overviewRuns; i++) {
      const { page, context } = await openProbed(browser, `${base}/`);
      const t = await firstRender(page, 'overview', '.tile');
      const p = await perf(page);
      overview.push({
        firstRenderMs: t ?? NaN,
        fcpMs: p.paints['first-contentful-paint'] ?? NaN,
        lcpMs: p.lcp,
        lastGraphqlMs: Math.max(...p.gql.filter((g) => g <= (t ?? Infinity))),
        longestTaskMs: longest(p.longtasks),
      });
      await context.close();
    }

    const result: UiBenchResult = {
      initialGzipBytes: initialFiles.reduce((a, f) => a + f.gzipBytes, 0),
      initialFiles,
      allAssetsGzipBytes: allAssetsGzip(),
      overview,
      session: { skipped: 'page not built' },
      live: { skipped: 'page not built' },
    };
    result.session = await sessionStep(browser, base, o.sessionSpans, progress);
    result.live = await liveStep(browser, base, o, progress);
    return result;
  } finally {
    await browser.close();
    await server.stop();
    server.dispose();
  }
}

async function sessionRender(browser: Browser, base: string, id: string) {
  const { page, context } = await openProbed(browser, `${base}/sessions/${id}`);
  const t = await firstRender(page, 'tree', '[role="treeitem"]');
  if (t === null) return { page, context, t: null };
  const p = await perf(page);
  const data = Math.max(...p.gql.filter((g) => g <= t));
  return { page, context, t: { afterDataMs: t - data, firstRenderMs: t } };
}

async function sessionStep(
  browser: Browser,
  base: string,
  n: number,
  progress: (m: string) => void,
): Promise<UiBenchResult['session']> {
  progress('ui: session page, 20 spans (baseline) and 2,000 spans, then scrolling');
  const small = await sessionRender(browser, base, 'ui-bench-small');
  await small.context.close();
  if (!small.t) return { skipped: 'page not built (/sessions/:id shows the placeholder)' };
  const large = await sessionRender(browser, base, 'ui-bench-large');
  try {
    if (!large.t) return { skipped: 'page not built (/sessions/:id shows the placeholder)' };
    const page = large.page;
    const idleFrom = await page.evaluate(() => performance.now());
    await sleep(1_000);
    const scrollFrom = await page.evaluate(() => performance.now());
    const box = await page.locator('[role="treeitem"]').first().boundingBox();
    await page.mouse.move((box?.x ?? 400) + 50, (box?.y ?? 300) + 10);
    for (let i = 0; i < 60; i++) {
      await page.mouse.wheel(0, i < 40 ? 600 : -900);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
    }
    await sleep(300);
    const p = await perf(page);
    return {
      spans: n,
      small: small.t,
      large: large.t,
      scrollLongestTaskMs: longest(p.longtasks, scrollFrom),
      scrollLongTasks: p.longtasks.filter(([s]) => s >= scrollFrom).length,
      idleLongestTaskMs: longest(p.longtasks, idleFrom, scrollFrom),
    };
  } finally {
    await large.context.close();
  }
}

async function liveStep(
  browser: Browser,
  base: string,
  o: { liveSeconds: number; liveRate: number },
  progress: (m: string) => void,
): Promise<UiBenchResult['live']> {
  const { page, context } = await openProbed(browser, `${base}/live`);
  try {
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.locator('main').waitFor();
    await sleep(1_000);
    if (await page.getByText(NOT_BUILT).count())
      return { skipped: 'page not built (/live shows the placeholder)' };
    const cdp = await context.newCDPSession(page);
    const heapMb = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      return (await cdp.send('Runtime.getHeapUsage')).usedSize / 2 ** 20;
    };
    progress('ui: live page idle 5 s (baseline)');
    const idleFrom = await page.evaluate(() => performance.now());
    await sleep(5_000);
    const idleTo = await page.evaluate(() => performance.now());
    const heapStart = await heapMb();
    progress(`ui: live page at ${o.liveRate} spans/s for ${o.liveSeconds} s`);
    const batch = Math.max(1, Math.round(o.liveRate / 10));
    const t0 = performance.now();
    let sent = 0;
    for (let tick = 0; performance.now() - t0 < o.liveSeconds * 1000; tick++) {
      const due = t0 + tick * 100;
      if (due > performance.now()) await sleep(due - performance.now());
      await post(
        base,
        Array.from({ length: batch }, (_, i) =>
          nativeSpan({
            session_id: `ui-live-${(sent + i) % 40}`,
            agent_name: `agent-${i % 5}`,
            status: i % 23 === 0 ? 'error' : 'success',
          }),
        ),
      );
      sent += batch;
    }
    const loadTo = await page.evaluate(() => performance.now());
    const p = await perf(page);
    const heapEnd = await heapMb();
    return {
      spansPerSec: o.liveRate,
      seconds: o.liveSeconds,
      spansSent: sent,
      idle: {
        longestTaskMs: longest(p.longtasks, idleFrom, idleTo),
        longTasksOver100: count100(p.longtasks, idleFrom, idleTo),
        heapMb: heapStart,
      },
      load: {
        longestTaskMs: longest(p.longtasks, idleTo, loadTo),
        longTasksOver100: count100(p.longtasks, idleTo, loadTo),
        heapStartMb: heapStart,
        heapEndMb: heapEnd,
      },
    };
  } finally {
    await context.close();
  }
}

const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
const ms = (n: number) => (Number.isFinite(n) ? `${n.toFixed(0)} ms` : '-');

/** The row as text: each figure beside its baseline from the same run and its budget. */
export function formatUiReport(r: UiBenchResult, loadAverage: number): string {
  const rows: [string, string, string, string, string][] = [];
  const check = (pass: boolean) => (pass ? 'PASS' : 'FAIL');
  rows.push([
    'initial JS + CSS, gzip',
    kb(r.initialGzipBytes),
    `all assets ${kb(r.allAssetsGzipBytes)}`,
    '< 150 KB',
    check(r.initialGzipBytes < 150 * 1024),
  ]);
  const first = median(r.overview.map((o) => o.firstRenderMs));
  rows.push([
    `overview first render (median of ${r.overview.length} cold loads)`,
    ms(first),
    `FCP ${ms(median(r.overview.map((o) => o.fcpMs)))}, data ${ms(median(r.overview.map((o) => o.lastGraphqlMs)))}`,
    '< 1 s',
    check(first < 1000),
  ]);
  if ('skipped' in r.session) rows.push(['session page', r.session.skipped, '', '', 'SKIP']);
  else {
    const s = r.session;
    rows.push([
      `session page, ${s.spans} spans: first render after its data`,
      ms(s.large.afterDataMs),
      `20 spans: ${ms(s.small.afterDataMs)}`,
      '< 500 ms',
      check(s.large.afterDataMs < 500),
    ]);
    rows.push([
      `session page, ${s.spans} spans: longest task while scrolling`,
      ms(s.scrollLongestTaskMs),
      `idle: ${ms(s.idleLongestTaskMs)}`,
      '< 100 ms',
      check(s.scrollLongestTaskMs < 100),
    ]);
  }
  if ('skipped' in r.live) rows.push(['live page', r.live.skipped, '', '', 'SKIP']);
  else {
    const l = r.live;
    rows.push([
      `live page at ${l.spansPerSec} spans/s for ${l.seconds} s: longest task`,
      `${ms(l.load.longestTaskMs)} (${l.load.longTasksOver100} over 100 ms)`,
      `idle: ${ms(l.idle.longestTaskMs)}`,
      'none > 100 ms',
      check(l.load.longTasksOver100 === 0),
    ]);
    rows.push([
      'live page: JS heap after GC, start → end',
      `${l.load.heapStartMb.toFixed(1)} → ${l.load.heapEndMb.toFixed(1)} MB`,
      `${l.spansSent} spans sent`,
      'flat',
      check(l.load.heapEndMb < l.load.heapStartMb * 1.5 + 2),
    ]);
  }
  const head = ['', 'measured', 'baseline (same run)', 'budget', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (c: string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [
    '',
    `Dashboard (dist/ui in ${CHROMIUM}, headless, 1280×800, loopback; server on PGlite, SPYGLASS_RATE_LIMITS=off: one bench client exceeds any per-client limit; load average ${loadAverage.toFixed(2)} at start):`,
    line(head),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    `initial files: ${r.initialFiles.map((f) => `${f.file} ${kb(f.gzipBytes)}`).join(', ')}`,
    '',
  ].join('\n');
}
