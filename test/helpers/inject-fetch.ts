import { Readable } from 'node:stream';
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
    return new Response(empty ? null : (Readable.toWeb(stream) as ReadableStream), {
      status: res.statusCode,
      headers,
    });
  };
}
