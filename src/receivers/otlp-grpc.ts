/**
 * OTLP/gRPC trace receiver: opentelemetry.proto.collector.trace.v1.TraceService/Export.
 *
 * The service is defined by hand with identity (de)serialisers so the only per-request work is
 * decodeOtlpProtobuf, exactly what the OTLP/HTTP path does; an earlier prototype that went through
 * @grpc/proto-loader's generic objects was 2.5-3x slower than HTTP. Decoding happens in the handler
 * rather than in requestDeserialize because grpc-js reports deserialiser failures as INTERNAL,
 * while an undecodable export is the client's fault (INVALID_ARGUMENT, not retried).
 *
 * `admit` (authentication, rate limit) runs on the metadata before the message is decoded, so an
 * unauthenticated or throttled caller costs no decoding and never sees a decoder error.
 *
 * gzip/deflate request compression is handled by grpc-js itself (it advertises
 * `grpc-accept-encoding: identity,deflate,gzip` and enforces the receive limit on the
 * decompressed size), so nothing here needs to know about it.
 *
 * Its HTTP/2 receive windows are sized for exports, not HTTP/2's 64 KB (grpc-windows.ts).
 */
import {
  Metadata,
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
  type StatusObject,
} from '@grpc/grpc-js';
import { Writer } from 'protobufjs/minimal.js';
import { SpyglassError } from '../errors.ts';
import type { CpuSlices } from '../ingest/cpu-slices.ts';
import { widenReceiveWindows } from './grpc-windows.ts';
import { decodeOtlpProtobuf, encodeExportResponse } from './otlp-protobuf.ts';
import type { DecodedExport, ExportOutcome } from '../model/otlp.ts';

export const TRACE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

export interface CallMeta {
  metadata: Record<string, string>;
  peer: string;
}

export interface GrpcReceiverOptions<A = unknown> {
  host: string;
  /** 0 = ephemeral; the bound port is returned. */
  port: number;
  /** Decides from metadata alone whether the call may proceed (throws a SpyglassError if not). */
  admit: (meta: CallMeta) => Promise<A>;
  onExport: (req: DecodedExport, admitted: A, meta: CallMeta) => Promise<ExportOutcome>;
  /** The app's ingest CPU slices (src/ingest/cpu-slices.ts), shared with its HTTP receivers. */
  slices: CpuSlices;
  /** Whose call this is, for taking turns in the ingest CPU slices. */
  tenantOf?: (admitted: A, meta: CallMeta) => string;
  maxMessageBytes: number;
  /** Sees errors that reach clients only as INTERNAL "internal error", so they can be logged. */
  onInternalError?: (err: unknown) => void;
  /** How long close() lets in-flight calls finish before cutting connections. Default 5000. */
  shutdownGraceMs?: number;
}

export interface GrpcReceiver {
  port: number;
  close(): Promise<void>;
}

const passBuffer = (b: Buffer): Buffer => b;

const traceService: ServiceDefinition = {
  Export: {
    path: TRACE_EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: passBuffer,
    requestDeserialize: passBuffer,
    responseSerialize: (outcome: ExportOutcome) => toBuffer(encodeExportResponse(outcome)),
    responseDeserialize: passBuffer,
  },
};

export async function startOtlpGrpcServer<A>(opts: GrpcReceiverOptions<A>): Promise<GrpcReceiver> {
  const server = new Server({
    'grpc.max_receive_message_length': opts.maxMessageBytes,
    // channelz keeps per-call statistics nobody here reads.
    'grpc.enable_channelz': 0,
  });
  server.addService(traceService, {
    Export: (
      call: ServerUnaryCall<Buffer, ExportOutcome>,
      callback: sendUnaryData<ExportOutcome>,
    ) => {
      handleExport(call, opts).then(
        (outcome) => callback(null, outcome),
        (err: unknown) => callback(toGrpcStatus(err, opts.onInternalError)),
      );
    },
  });
  let port: number;
  try {
    port = await bindServer(server, formatAddress(opts.host, opts.port));
    widenReceiveWindows(server);
  } catch (err) {
    server.forceShutdown();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    port,
    close: () => (closing ??= shutDownServer(server, opts.shutdownGraceMs ?? 5000)),
  };
}

async function handleExport<A>(
  call: ServerUnaryCall<Buffer, ExportOutcome>,
  opts: GrpcReceiverOptions<A>,
): Promise<ExportOutcome> {
  const meta = { metadata: flattenMetadata(call.metadata), peer: call.getPeer() };
  const admitted = await opts.admit(meta);
  // Decoding and what follows it run in an ingest CPU slice, as on OTLP/HTTP.
  await opts.slices.ingestSlice(call.request.length, opts.tenantOf?.(admitted, meta));
  return opts.onExport(decodeOtlpProtobuf(call.request), admitted, meta);
}

/** First value per key; binary (-bin) values as base64. grpc-js already lowercases keys. */
function flattenMetadata(md: Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(md.getMap())) {
    out[key.toLowerCase()] = typeof value === 'string' ? value : value.toString('base64');
  }
  return out;
}

const GRPC_CODE: Partial<Record<SpyglassError['code'], status>> = {
  bad_request: status.INVALID_ARGUMENT,
  validation: status.INVALID_ARGUMENT,
  payload_too_large: status.INVALID_ARGUMENT,
  unsupported_media_type: status.INVALID_ARGUMENT,
  not_found: status.NOT_FOUND,
  unauthenticated: status.UNAUTHENTICATED,
  forbidden: status.PERMISSION_DENIED,
  rate_limited: status.RESOURCE_EXHAUSTED,
  overloaded: status.UNAVAILABLE,
  unavailable: status.UNAVAILABLE,
};

function toGrpcStatus(
  err: unknown,
  onInternalError: ((err: unknown) => void) | undefined,
): Partial<StatusObject> {
  const code = err instanceof SpyglassError ? GRPC_CODE[err.code] : undefined;
  if (!(err instanceof SpyglassError) || code === undefined) {
    onInternalError?.(err);
    return { code: status.INTERNAL, details: 'internal error' };
  }
  const metadata = new Metadata();
  if (err.retryAfter !== undefined && err.retryAfter >= 0) {
    const ms = Math.round(err.retryAfter * 1000);
    // grpc-js/grpc-core clients read the pushback trailer; OTLP clients (the collector) read
    // google.rpc.RetryInfo from the status details.
    metadata.set('grpc-retry-pushback-ms', String(ms));
    metadata.set('grpc-status-details-bin', encodeRetryStatus(code, err.message, ms));
  }
  return { code, details: err.message, metadata };
}

/** google.rpc.Status { code = 1; message = 2; details = 3: Any { type_url = 1; value = 2: RetryInfo } }. */
function encodeRetryStatus(code: number, message: string, delayMs: number): Buffer {
  const retryInfo = Writer.create()
    .uint32((1 << 3) | 2)
    .fork() // RetryInfo.retry_delay = 1: Duration
    .uint32((1 << 3) | 0)
    .int64(Math.floor(delayMs / 1000)) // Duration.seconds
    .uint32((2 << 3) | 0)
    .int32((delayMs % 1000) * 1e6) // Duration.nanos
    .ldelim()
    .finish();
  const w = Writer.create()
    .uint32((1 << 3) | 0)
    .int32(code)
    .uint32((2 << 3) | 2)
    .string(message);
  w.uint32((3 << 3) | 2)
    .fork()
    .uint32((1 << 3) | 2)
    .string('type.googleapis.com/google.rpc.RetryInfo')
    .uint32((2 << 3) | 2)
    .bytes(retryInfo)
    .ldelim();
  return toBuffer(w.finish());
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function formatAddress(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

function bindServer(server: Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    );
  });
}

/** Lets in-flight exports finish, but never waits on a stuck client for longer than graceMs. */
function shutDownServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
