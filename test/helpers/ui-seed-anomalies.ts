import { nativeSpan } from './spans.ts';
import { seedSpans } from './ui.ts';

/**
 * Seeding for the anomalies page test (test/ui/anomalies.browser.test.ts), as
 * test/anomalies/detector.test.ts does: a tool's calls hour by hour through native ingest, a
 * baseline on the four days before and a spike in the last complete hour (the current hour has no
 * calls, so the detector scores the previous one).
 */
export const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The last complete clock hour: the one the detector scores when the current hour is quiet. */
export const sampleHour = () => Math.floor(Date.now() / HOUR) * HOUR - HOUR;

/** Baseline hours with mean latencies 100, 120, 80 and 100 ms (two calls each), then `spikeMs` × 5. */
export async function seedLatencySpike(
  base: string,
  server: string,
  tool: string,
  spikeMs: number,
): Promise<void> {
  const h = sampleHour();
  const hours = [
    ...[100, 120, 80, 100].map((m, i) => ({ at: h - (i + 1) * DAY, latencies: [m - 10, m + 10] })),
    { at: h, latencies: Array<number>(5).fill(spikeMs) },
  ];
  const spans = hours.flatMap(({ at, latencies }) =>
    latencies.map((latency, i) => {
      const start = at + 60_000 + i * 1000;
      return nativeSpan({
        session_id: `anom-${server}-${at}`,
        trace_id: `anom-${server}-${at}`,
        server_name: server,
        tool_name: tool,
        started_at: new Date(start).toISOString(),
        ended_at: new Date(start + latency).toISOString(),
        latency_ms: latency,
      });
    }),
  );
  await seedSpans(base, spans);
}
