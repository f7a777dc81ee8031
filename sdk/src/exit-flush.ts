/**
 * Flushes every live exporter when the event loop empties (`beforeExit`), once per batch of new
 * spans: a backend that is down must not keep the process alive by re-arming the event forever.
 */
import type { SpanExporter } from './exporter.ts';

const live = new Set<SpanExporter>();
const flushedAt = new WeakMap<SpanExporter, number>();
let listening = false;

function flushAll(): void {
  for (const exporter of live) {
    const { buffered, sent, dropped } = exporter.stats();
    const mark = sent + dropped + buffered;
    if (buffered === 0 || flushedAt.get(exporter) === mark) continue;
    flushedAt.set(exporter, mark);
    void exporter.flush();
  }
}

export function onBeforeExit(exporter: SpanExporter): () => void {
  live.add(exporter);
  if (!listening) {
    listening = true;
    process.on('beforeExit', flushAll);
  }
  return () => live.delete(exporter);
}
