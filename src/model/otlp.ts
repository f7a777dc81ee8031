/**
 * The decoded form of an OTLP ExportTraceServiceRequest, produced by both the OTLP/JSON and the
 * protobuf decoders so the normaliser sees one shape. Only the fields Spyglass maps are kept.
 */
export type AttrValue =
  string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attrs = Record<string, AttrValue>;

export interface DecodedSpan {
  /** Lowercase hex, 32 chars; '' when absent. */
  traceId: string;
  /** Lowercase hex, 16 chars. */
  spanId: string;
  /** Lowercase hex, '' for a root span. */
  parentSpanId: string;
  name: string;
  /** Milliseconds since the epoch, fractional (sub-ms precision kept). */
  startTimeMs: number;
  endTimeMs: number;
  attributes: Attrs;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  /** Set when the span decoded but cannot be stored (e.g. attributes nested too deep): it is rejected alone. */
  problem?: string;
}

export interface DecodedResourceSpans {
  resource: Attrs;
  spans: DecodedSpan[];
}

export interface DecodedExport {
  resourceSpans: DecodedResourceSpans[];
}

/** What an export handler reports back, mapped to OTLP partial_success. */
export interface ExportOutcome {
  rejectedSpans: number;
  errorMessage: string;
}
