/**
 * Security scan benchmark: one `POST /api/security/scan`-equivalent run (ScanService.scan) over N
 * configured servers, timed end to end: each server's health check with inventory (initialize,
 * tools/list, prompts/list, resources/list), the checks in src/security/registry.ts, and storing
 * the health result, the scan and its findings. The servers are the SDK-based streamable-HTTP
 * fixtures of test/fixtures/mcp/http-fixtures.ts in this process (no process spawn per server,
 * so the number measures Spyglass, not `node` start-up); the store is PGlite in a temp directory.
 *
 *   node --import tsx bench/scan.ts                 50 servers, 3 timed runs after one warm-up
 *   node --import tsx bench/scan.ts --servers 10 --runs 1
 *
 * `runScanBench` is exported for bench/run.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { LOCAL_ADMIN } from '../src/auth/principal.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { createServices } from '../src/services.ts';
import { openStore } from '../src/store/open-store.ts';
import { startHttpFixtures } from '../test/fixtures/mcp/http-fixtures.ts';

export interface ScanBenchOptions {
  servers: number;
  runs: number;
}

export interface ScanBenchResult {
  servers: number;
  concurrency: number;
  /** Wall time of one whole scan run, per timed run. */
  runsMs: number[];
  medianMs: number;
  /** Scans that came back with an error (should be 0). */
  errors: number;
}

export async function runScanBench(
  o: ScanBenchOptions,
  progress: (msg: string) => void,
): Promise<ScanBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-bench-scan-'));
  const fx = await startHttpFixtures();
  const configPath = join(dir, 'spyglass.yaml');
  writeFileSync(
    configPath,
    stringify({
      monitor: { enabled: false },
      servers: Array.from({ length: o.servers }, (_, i) => ({
        name: `server-${String(i).padStart(3, '0')}`,
        transport: 'streamable_http',
        url: `${fx.url}/ok/s${i}/mcp`,
      })),
    }),
  );
  const config = loadConfig(
    { SPYGLASS_CONFIG: configPath, SPYGLASS_DATA_DIR: join(dir, 'data') },
    dir,
  );
  progress(
    `scan: ${o.servers} fixture servers, security.concurrency ${config.security.concurrency}; opening PGlite`,
  );
  const store = await openStore({ databaseUrl: undefined, dataDir: config.dataDir, poolSize: 1 });
  const services = await createServices(config, store, pino({ level: 'silent' }));
  try {
    await services.security.scan(LOCAL_ADMIN, {}); // warm-up: connections, plans, the first tool snapshots
    const runsMs: number[] = [];
    let errors = 0;
    for (let i = 0; i < o.runs; i++) {
      const t = performance.now();
      const scans = await services.security.scan(LOCAL_ADMIN, {});
      runsMs.push(performance.now() - t);
      errors = scans.filter((s) => s.error !== null).length;
      progress(
        `scan: run ${i + 1}: ${runsMs[i]?.toFixed(0)} ms, ${scans.length} scans, ${errors} with an error`,
      );
    }
    const sorted = [...runsMs].sort((a, b) => a - b);
    return {
      servers: o.servers,
      concurrency: config.security.concurrency,
      runsMs,
      medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
      errors,
    };
  } finally {
    await services.close();
    await store.close();
    await fx.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatScanReport(r: ScanBenchResult): string {
  return [
    `## Security scan: ${r.servers} streamable-HTTP fixture servers, security.concurrency ${r.concurrency} (PGlite)`,
    '',
    `one scan run: median ${r.medianMs.toFixed(0)} ms (runs: ${r.runsMs.map((m) => m.toFixed(0)).join(', ')} ms), ${(r.medianMs / r.servers).toFixed(1)} ms per server; scans with an error: ${r.errors}`,
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { servers: { type: 'string' }, runs: { type: 'string' } },
  });
  const r = await runScanBench(
    { servers: Number(values.servers ?? 50), runs: Number(values.runs ?? 3) },
    (m) => process.stderr.write(`[bench] ${m}\n`),
  );
  process.stdout.write(formatScanReport(r));
}
