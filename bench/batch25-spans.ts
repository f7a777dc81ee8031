import { randomUUID } from 'node:crypto';
import type { Span } from '../src/model/span.ts';
import { normalizeNativeBatch } from '../src/normalize/native.ts';
import { nativeSpan } from '../test/helpers/spans.ts';
import { seqAllocator } from './load.ts';

const nextSeq = seqAllocator(0);

/**
 * `count` spans as the writer gets them in a batch-25 run of the bench: eight a trace, the traces
 * over 50 sessions, seven tools, every id fresh (`prefix` tells the benches' apart).
 */
export function batch25Spans(count: number, prefix: string): Span[] {
  const first = nextSeq(count);
  const body = Array.from({ length: count }, (_, i) => {
    const n = first + i;
    return nativeSpan({
      span_id: `${prefix}-${n}-${randomUUID()}`,
      trace_id: `trace-${Math.floor(n / 8)}`,
      session_id: `session-${Math.floor(n / 8) % 50}`,
      tool_name: `tool-${i % 7}`,
    });
  });
  return normalizeNativeBatch(body, 'default', count);
}
