/**
 * The agent SDK's costs: (1) guard overhead per wrapped call — `callTool` of a `wrapMcp`'d MCP
 * client versus the bare client, both on an in-process server over InMemoryTransport, guards on
 * with the default config, inside a session, spans exported to a real server; (2) the span export
 * rate — spans/s delivered to a real Spyglass server child process on PGlite (rate limits off).
 *
 *   node --import tsx bench/sdk.ts [--calls 20000]
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Spyglass } from '../sdk/src/index.ts';
import { mcpPair } from '../test/sdk/mcp-pair.ts';
import { startServerProc } from './server-proc.ts';

export interface SdkBenchResult {
  calls: number;
  bareP50Us: number;
  bareP99Us: number;
  wrappedP50Us: number;
  wrappedP99Us: number;
  overheadP50Us: number;
  overheadP99Us: number;
  exportSpans: number;
  exportSpansPerSec: number;
  exportDropped: number;
  exportFailedAttempts: number;
}

const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
const nowUs = (): number => Number(process.hrtime.bigint()) / 1000;
/** Typical small arguments; 7 distinct values so the default loop guard sees no repetition. */
const argsOf = (i: number) => ({ query: `how to configure item ${i % 7}`, limit: 10, ratio: 0.25 });

export async function runSdkBench(
  o: { calls: number; exportSpans: number },
  progress: (msg: string) => void,
): Promise<SdkBenchResult> {
  const server = await startServerProc({ rateLimits: 'off' });
  const bare = await mcpPair();
  const guarded = await mcpPair();
  try {
    const sg = new Spyglass({
      url: server.httpUrl,
      agentName: 'bench',
      flushIntervalMs: 200,
      maxBufferedSpans: 200_000,
      logger: { warn: () => undefined },
    });
    const client = sg.wrapMcp(guarded.client, { serverName: 'bench' });
    const bareUs: number[] = [];
    const wrappedUs: number[] = [];
    progress(
      `sdk: ${o.calls} bare and ${o.calls} wrapped callTool calls (interleaved) after warm-up`,
    );
    await sg.session({ agentName: 'bench' }, async () => {
      const warmup = Math.max(2000, o.calls / 10);
      for (let i = -warmup; i < o.calls; i++) {
        const args = argsOf(i);
        let t = nowUs();
        await bare.client.callTool({ name: 'echo', arguments: args });
        if (i >= 0) bareUs.push(nowUs() - t);
        t = nowUs();
        await client.callTool({ name: 'echo', arguments: args });
        if (i >= 0) wrappedUs.push(nowUs() - t);
      }
    });
    await sg.shutdown();
    bareUs.sort((a, b) => a - b);
    wrappedUs.sort((a, b) => a - b);

    progress(`sdk: export rate of ${o.exportSpans} spans to a PGlite server`);
    const exporter = new Spyglass({
      url: server.httpUrl,
      agentName: 'bench-export',
      flushIntervalMs: 50,
      maxBufferedSpans: o.exportSpans + 1,
      logger: { warn: () => undefined },
    });
    const t0 = performance.now();
    for (let i = 0; i < o.exportSpans; i++) {
      await exporter.guard({ serverName: 'bench', toolName: 'export', args: argsOf(i) }, () => i);
      if (i % 1000 === 999) await new Promise((r) => setImmediate(r));
    }
    const deadline = Date.now() + 120_000;
    while (
      exporter.stats().sent + exporter.stats().dropped < o.exportSpans &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 5));
    const seconds = (performance.now() - t0) / 1000;
    const stats = exporter.stats();
    await exporter.shutdown();
    return {
      calls: o.calls,
      bareP50Us: pct(bareUs, 50),
      bareP99Us: pct(bareUs, 99),
      wrappedP50Us: pct(wrappedUs, 50),
      wrappedP99Us: pct(wrappedUs, 99),
      overheadP50Us: pct(wrappedUs, 50) - pct(bareUs, 50),
      overheadP99Us: pct(wrappedUs, 99) - pct(bareUs, 99),
      exportSpans: o.exportSpans,
      exportSpansPerSec: stats.sent / seconds,
      exportDropped: stats.dropped,
      exportFailedAttempts: stats.failedAttempts,
    };
  } finally {
    await bare.close();
    await guarded.close();
    await server.stop();
    server.dispose();
  }
}

export function formatSdkReport(r: SdkBenchResult): string {
  const f = (n: number): string => n.toFixed(1);
  return [
    `## Agent SDK: guard overhead per wrapped MCP call (${r.calls} calls, InMemoryTransport, default guards) and span export (PGlite server, rate limits off)`,
    '',
    `bare callTool: p50 ${f(r.bareP50Us)} µs, p99 ${f(r.bareP99Us)} µs; wrapMcp callTool: p50 ${f(r.wrappedP50Us)} µs, p99 ${f(r.wrappedP99Us)} µs`,
    `overhead: p50 ${f(r.overheadP50Us)} µs (target < 50 µs: ${r.overheadP50Us < 50 ? 'met' : 'MISSED'}), p99 ${f(r.overheadP99Us)} µs`,
    `export: ${r.exportSpans} spans delivered at ${Math.round(r.exportSpansPerSec)} spans/s (dropped ${r.exportDropped}, failed attempts ${r.exportFailedAttempts})`,
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { calls: { type: 'string' }, 'export-spans': { type: 'string' } },
  });
  const r = await runSdkBench(
    {
      calls: Number(values.calls ?? 20_000),
      exportSpans: Number(values['export-spans'] ?? 50_000),
    },
    (m) => process.stderr.write(`[bench] ${m}\n`),
  );
  process.stdout.write(formatSdkReport(r));
}
