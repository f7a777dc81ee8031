/**
 * Loaded into the otel-real row's server (node --import, after tsx's loader), to say how long an
 * export's bytes take to reach it: for every OTLP/HTTP `POST /v1/traces` and every OTLP/gRPC
 * `TraceService/Export`, the time from its request headers to its body's last byte at the server
 * (upload), and to its answer (total). Over HTTP/1.1 the body is mostly in the socket's buffer by
 * the time the headers are parsed; over HTTP/2 it comes in as the receive windows allow. Wraps
 * `http.createServer` and `http2.createServer` (Fastify's and grpc-js's servers are made through
 * them) and only listens: it never reads a body itself. Written as JSON to
 * SPYGLASS_BENCH_UPLOAD_TRACE when the process exits.
 */
import http from 'node:http';
import http2 from 'node:http2';
import { writeFileSync } from 'node:fs';

/** Per protocol: [upload ms, total ms] per export. */
export interface UploadRecord {
  http: [number, number][];
  grpc: [number, number][];
}

const out = process.env.SPYGLASS_BENCH_UPLOAD_TRACE;
if (out) start(out);

function start(file: string): void {
  const record: UploadRecord = { http: [], grpc: [] };
  const createH2 = http2.createServer.bind(http2) as (...args: unknown[]) => http2.Http2Server;
  (http2 as { createServer: unknown }).createServer = (...args: unknown[]) => {
    const server = createH2(...args);
    server.on('stream', (stream, headers) => {
      if (!String(headers[':path']).endsWith('/Export')) return;
      const t0 = performance.now();
      let upload = Number.NaN;
      stream.on('end', () => (upload = performance.now() - t0));
      stream.on('close', () => record.grpc.push([upload, performance.now() - t0]));
    });
    return server;
  };
  const createH1 = http.createServer.bind(http) as (...args: unknown[]) => http.Server;
  (http as { createServer: unknown }).createServer = (...args: unknown[]) => {
    const server = createH1(...args);
    server.prependListener('request', (req, res) => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return;
      const t0 = performance.now();
      let upload = Number.NaN;
      req.on('end', () => (upload = performance.now() - t0));
      res.on('finish', () => record.http.push([upload, performance.now() - t0]));
    });
    return server;
  };
  process.on('exit', () => writeFileSync(file, JSON.stringify(record)));
}
