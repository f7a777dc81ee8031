import type { Principal } from '../auth/principal.ts';
import { SELECTION_DOC } from '../ingest/ignored-spans-log.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { normalizeOtlp, type OtlpRejection } from '../normalize/otlp.ts';
import type { Config } from '../config/types.ts';
import type { IgnoredSpansLog } from '../ingest/ignored-spans-log.ts';
import type { NativeIngest } from '../ingest/accept-native.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { DecodedExport, ExportOutcome } from '../model/otlp.ts';

/** partial_success.error_message lists at most this many problems, then says how many more. */
export const MAX_REPORTED_PROBLEMS = 100;

/** What an OTLP export uses (over HTTP and gRPC), and nothing else. */
export interface OtlpExportDeps {
  config: Pick<Config, 'ingest'>;
  ingest: NativeIngest['ingest'];
  metrics: Metrics;
  ignoredSpans: IgnoredSpansLog;
}

/**
 * The export step shared by OTLP/HTTP and OTLP/gRPC. Spans that are not agent, LLM or tool spans
 * are not stored (docs/ingest.md#otlp-mapping), which is not a rejection: partial_success says how many, with
 * rejected_spans 0 (OTLP's warning form), and they are counted and logged. Spans that cannot be
 * stored are rejected one by one and reported in partial_success; the good spans are stored.
 */
export async function exportOtlp(
  s: OtlpExportDeps,
  principal: Principal,
  req: DecodedExport,
): Promise<ExportOutcome> {
  const { spans, rejected, ignored, ignoredByProject } = normalizeOtlp(
    req,
    principal.projectId,
    DEFAULT_PROJECT,
    {
      keepAllSpans: s.config.ingest.otlpKeepAllSpans,
    },
  );
  await s.ingest(spans);
  if (ignored > 0) {
    s.metrics.otlpSpansIgnored.inc(ignored);
    for (const [project, n] of ignoredByProject) s.ignoredSpans.ignored(project, n);
  }
  const messages = [describeRejections(rejected), describeIgnored(ignored)].filter((m) => m !== '');
  return { rejectedSpans: rejected.length, errorMessage: messages.join('. ') };
}

function describeRejections(rejected: OtlpRejection[]): string {
  if (rejected.length === 0) return '';
  const lines = rejected.flatMap((r) => r.problems.map((p) => `span ${r.spanId}: ${p}`));
  const shown = lines.slice(0, MAX_REPORTED_PROBLEMS);
  const more = lines.length - shown.length;
  return `${rejected.length} span(s) rejected: ${shown.join('; ')}${more > 0 ? `; ${more} more problems not listed` : ''}`;
}

function describeIgnored(ignored: number): string {
  if (ignored === 0) return '';
  return `${ignored} span(s) not stored: not agent, LLM or tool spans (see ${SELECTION_DOC} for the selection rule)`;
}
