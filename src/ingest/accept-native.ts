import { enforce } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { forbidden } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { normalizeNativeBatch, normalizeNativeBatchSliced } from '../normalize/native.ts';
import type { Span } from '../model/span.ts';
import type { IngestResult } from './ingest-service.ts';

export interface NativeIngest {
  maxBatchSpans: number;
  ingest(spans: Span[]): Promise<IngestResult>;
}

/** Spans validated per piece of CPU work when the caller takes turns (`between`): about 5-10 ms. */
export const NORMALIZE_SLICE_SPANS = 250;

/**
 * A native JSON batch (docs/ingest.md) from any adapter (REST, GraphQL): the admin role writes;
 * normalised, held to the caller's project, stored. A project-bound key may not write another project's spans. With
 * `between`, a large batch is validated in slices and `between` runs before each slice after the
 * first (see normalizeNativeBatchSliced).
 */
export async function acceptNativeBatch(
  deps: NativeIngest,
  by: Principal,
  body: unknown,
  between?: () => Promise<void> | undefined,
): Promise<IngestResult> {
  enforce(by, 'write');
  const bound = by.projectId;
  const project = bound ?? DEFAULT_PROJECT;
  const spans =
    between && Array.isArray(body) && body.length > NORMALIZE_SLICE_SPANS
      ? await normalizeNativeBatchSliced(
          body,
          project,
          deps.maxBatchSpans,
          NORMALIZE_SLICE_SPANS,
          between,
        )
      : normalizeNativeBatch(body, project, deps.maxBatchSpans);
  if (bound !== null) {
    const other = spans.findIndex((sp) => sp.projectId !== bound);
    if (other >= 0)
      throw forbidden(
        `span ${other} names project ${spans[other]?.projectId}; this key is bound to project ${bound}`,
      );
  }
  return deps.ingest(spans);
}
