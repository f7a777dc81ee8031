import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/** Something that answers fetch-style requests for paths: the in-process app (no socket). */
export interface PathFetch {
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * fetch(path, init) through Fastify's app.inject(): the same routes, hooks and serialisers as over a
 * socket, answered as a web Response. The body streams (payloadAsStream), so an event stream can be
 * read or cancelled as over HTTP instead of keeping the call waiting for its end.
 */
export function injectFetch(app: FastifyInstance): PathFetch['fetch'] {
  return async (path, init = {}) => {
    const res = await app.inject({
      method: (init.method ?? 'GET') as 'GET',
      url: path,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      ...(init.body !== undefined && init.body !== null ? { payload: init.body as string } : {}),
      payloadAsStream: true,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, String(v));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || init.method === 'HEAD';
    const stream = res.stream();
    if (empty) stream.resume();
    return new Response(empty ? null : toWeb(stream), {
      status: res.statusCode,
      headers,
    });
  };
}

/**
 * The body as a web stream that tolerates being cancelled while data still arrives (Node 20's
 * Readable.toWeb then throws "Controller is already closed" from a data event, uncaught).
 */
function toWeb(stream: Readable): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stream.on('data', (chunk: Buffer) => {
        if (!done) controller.enqueue(new Uint8Array(chunk));
      });
      stream.on('end', () => {
        if (done) return;
        done = true;
        controller.close();
      });
      stream.on('error', (err) => {
        if (done) return;
        done = true;
        controller.error(err);
      });
    },
    cancel() {
      done = true;
      stream.destroy();
    },
  });
}
