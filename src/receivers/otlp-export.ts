import type { Principal } from '../auth/principal.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { normalizeOtlp } from '../normalize/otlp.ts';
import type { Services } from '../services.ts';
import type { DecodedExport, ExportOutcome } from './otlp-types.ts';

/**
 * The export step shared by OTLP/HTTP and OTLP/gRPC. Spans that are not agent or tool spans are
 * dropped by design (spec §2.1), which is not a rejection, so partial_success stays empty.
 */
export async function exportOtlp(s: Services, principal: Principal, req: DecodedExport): Promise<ExportOutcome> {
  const { spans } = normalizeOtlp(req, principal.projectId, DEFAULT_PROJECT);
  await s.ingest(spans);
  return { rejectedSpans: 0, errorMessage: '' };
}
