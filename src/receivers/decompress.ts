import { createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { SpyglassError } from '../errors.ts';

/**
 * Accepts `Content-Encoding: gzip` (and deflate) request bodies. Fastify's body limit is then applied
 * to the decompressed bytes, so a small zip bomb cannot grow past it.
 */
export function acceptCompressedBodies(app: FastifyInstance): void {
  app.addHook('preParsing', async (req, _reply, payload) => {
    const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding === 'identity') return payload;
    const inflater =
      encoding === 'gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : null;
    if (!inflater)
      throw new SpyglassError(
        'unsupported_media_type',
        `unsupported content encoding: ${encoding}`,
      );
    // The decompressed length is unknown; Fastify counts what it reads against bodyLimit.
    delete req.headers['content-length'];
    inflater.on('error', () => undefined);
    return payload.pipe(inflater);
  });
}
