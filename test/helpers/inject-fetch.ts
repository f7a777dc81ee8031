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

const apps = new Map<string, PathFetch['fetch']>();
let nextApp = 0;

/**
 * A URL for an in-process app (`inproc://<n>`) that fetchUrl answers through app.inject(), so tests
 * and helpers written against a server's URL (`${url}/api/...`) run unchanged on the in-process app.
 * `forget()` removes it when the app closes.
 */
export function inProcessUrl(fetch: PathFetch['fetch']): { url: string; forget(): void } {
  const url = `inproc://${nextApp++}`;
  apps.set(url, fetch);
  return { url, forget: () => apps.delete(url) };
}

/** fetch() that also answers an in-process app's URL (inProcessUrl); any other URL goes to the network. */
export function fetchUrl(input: string, init?: RequestInit): Promise<Response> {
  const m = /^(inproc:\/\/\d+)(.*)$/.exec(input);
  if (!m) return fetch(input, init);
  const app = apps.get(m[1] as string);
  if (!app) return Promise.reject(new Error(`${m[1]}: that in-process app was closed`));
  return app(m[2] || '/', init);
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
