import type { Principal } from '../auth/principal.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { normalizeOtlp, type OtlpRejection } from '../normalize/otlp.ts';
import type { Services } from '../services.ts';
import type { DecodedExport, ExportOutcome } from '../model/otlp.ts';

/** partial_success.error_message lists at most this many problems, then says how many more. */
export const MAX_REPORTED_PROBLEMS = 100;

/**
 * The export step shared by OTLP/HTTP and OTLP/gRPC. Spans that are not agent or tool spans are
 * dropped by design (spec §2.1), which is not a rejection. Spans that cannot be stored are
 * rejected one by one and reported in partial_success; the good spans of the request are stored.
 */
export async function exportOtlp(s: Services, principal: Principal, req: DecodedExport): Promise<ExportOutcome> {
  const { spans, rejected } = normalizeOtlp(req, principal.projectId, DEFAULT_PROJECT);
  await s.ingest(spans);
  return { rejectedSpans: rejected.length, errorMessage: describeRejections(rejected) };
}

function describeRejections(rejected: OtlpRejection[]): string {
  if (rejected.length === 0) return '';
  const lines = rejected.flatMap((r) => r.problems.map((p) => `span ${r.spanId}: ${p}`));
  const shown = lines.slice(0, MAX_REPORTED_PROBLEMS);
  const more = lines.length - shown.length;
  return `${rejected.length} span(s) rejected: ${shown.join('; ')}${more > 0 ? `; ${more} more problems not listed` : ''}`;
}
