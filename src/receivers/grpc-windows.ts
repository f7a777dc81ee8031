/**
 * HTTP/2 receive windows for the OTLP/gRPC server, sized for exports rather than HTTP/2's
 * default of 65,535 bytes per stream and per connection.
 *
 * With the default, an OpenTelemetry SDK export (512 spans, 0.7-1 MB) on the exporter's single
 * connection is received 64 KB at a time, each piece waiting until the server's busy event loop
 * has read the previous one and the exporter's (serialising the next batches) has seen the window
 * update; sixteen exports in flight share the connection's 64 KB. Measured with real exporter
 * traffic (docs/benchmarks.md, "gRPC's receive windows"): an export took 176-367 ms (p50) from its
 * headers to its last byte, against about 1 ms over OTLP/HTTP, where the kernel's socket buffer
 * takes a whole body at once; with the windows below, 48-56 ms. That wait was most of the
 * difference between gRPC's and OTLP/HTTP's export latency.
 *
 * A client may now have STREAM_WINDOW per call and CONNECTION_WINDOW per connection sent but not
 * yet read; grpc-js reads every byte into memory as it comes anyway (its message limit,
 * grpc.max_receive_message_length, still applies per call), so the windows change how fast a
 * message arrives, not how much of it is held.
 *
 * grpc-js sets neither window on its server and has no option for them (its
 * `grpc-node.flow_control_window` is read by its client only), so the server's HTTP/2 servers are
 * reached through its private `http2Servers` map. If a grpc-js upgrade removes it, nothing is set
 * and test/receivers/otlp-grpc.test.ts ("announces receive windows …") fails.
 */
import type { Http2Session } from 'node:http2';
import type { Server } from '@grpc/grpc-js';

/** At least one SDK export of 512 spans (0.7-1 MB in protobuf). */
export const STREAM_WINDOW = 1 << 20;
/** Sixteen such exports in flight on one connection (the otel-real bench's exporter). */
export const CONNECTION_WINDOW = 16 << 20;

interface SessionSource {
  on(event: 'session', listener: (session: Http2Session) => void): unknown;
}

/** Applies the windows to every session of `server`'s bound HTTP/2 servers; false if none found. */
export function widenReceiveWindows(server: Server): boolean {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map) || servers.size === 0) return false;
  for (const h2 of servers.keys() as Iterable<SessionSource>) {
    h2.on('session', (session) => {
      session.settings({ initialWindowSize: STREAM_WINDOW });
      session.setLocalWindowSize(CONNECTION_WINDOW);
    });
  }
  return true;
}
