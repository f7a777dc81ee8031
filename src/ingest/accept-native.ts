import type { Principal } from '../auth/principal.ts';
import { forbidden } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { normalizeNativeBatch } from '../normalize/native.ts';
import type { Span } from '../model/span.ts';
import type { IngestResult } from './ingest-service.ts';

export interface NativeIngest {
  maxBatchSpans: number;
  ingest(spans: Span[]): Promise<IngestResult>;
}

/**
 * A native JSON batch (docs/ingest.md) from any adapter (REST, GraphQL): normalised, held to the
 * caller's project, stored. A project-bound key may not write another project's spans.
 */
export async function acceptNativeBatch(deps: NativeIngest, by: Principal, body: unknown): Promise<IngestResult> {
  const bound = by.projectId;
  const spans = normalizeNativeBatch(body, bound ?? DEFAULT_PROJECT, deps.maxBatchSpans);
  if (bound !== null) {
    const other = spans.findIndex((sp) => sp.projectId !== bound);
    if (other >= 0) throw forbidden(`span ${other} names project ${spans[other]?.projectId}; this key is bound to project ${bound}`);
  }
  return deps.ingest(spans);
}
