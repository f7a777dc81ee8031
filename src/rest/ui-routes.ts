import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { packagePath } from '../package-root.ts';

/** Where `npm run build:ui` puts the dashboard. */
export const UI_DIR = packagePath('dist/ui');

/** Paths that keep their API meaning: an unknown one there is a JSON 404, never the app. */
const API_PATHS = /^\/(api|graphql|v1|metrics|assets)(\/|$)/;

const NOT_BUILT = `The Spyglass dashboard is not built.

Build it with:  npm run build   (or only the UI: npm run build:ui)
then restart:   npm start

The API works without it: /graphql, /api/..., /v1/traces.
`;

/**
 * The dashboard at `/` (docs/ui.md): hashed assets under /assets/ cached for a year, index.html
 * never cached, and every other GET that is not an API path answered with index.html so client
 * routes (/sessions/abc?tab=tree) load the app. The shell holds no data, so these routes are
 * public; the data comes from /graphql under the usual auth. Strict CSP: only this origin's
 * scripts, styles and images, no inline script, connections to this origin and its WebSocket.
 */
export async function registerUiRoutes(app: FastifyInstance, dir = UI_DIR): Promise<void> {
  const indexPath = join(dir, 'index.html');
  const index = existsSync(indexPath) ? readFileSync(indexPath) : null;
  const publicRoute = { config: { access: 'public' as const } };

  const sendIndex = (req: FastifyRequest, reply: FastifyReply) => {
    if (!index)
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .send(NOT_BUILT);
    return reply
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', uiCsp(req.headers.host))
      .send(index);
  };

  app.get('/', publicRoute, sendIndex);
  if (index) {
    // Only reply.sendFile: the route below is ours, so it carries its access level like every route.
    await app.register(fastifyStatic, { root: join(dir, 'assets'), serve: false });
    app.get<{ Params: { '*': string } }>('/assets/*', publicRoute, (req, reply) => {
      const file = req.params['*'];
      return reply.sendFile(file, join(dir, 'assets'), {
        immutable: true,
        maxAge: '365d',
        dotfiles: 'deny',
      });
    });
  }
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] as string;
    if ((req.method === 'GET' || req.method === 'HEAD') && !API_PATHS.test(path))
      return sendIndex(req, reply);
    return reply.status(404).send({ detail: `no route ${req.method} ${path}` });
  });
}

/** A Host we can name in connect-src: a hostname or address with an optional port, nothing else. */
const SAFE_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The dashboard's policy. `connect-src 'self'` covers same-origin ws:/wss: in CSP Level 3
 * browsers; the explicit ws:/wss: origin of this Host is for those that still treat 'self' as
 * http(s) only (Safari before 15.4).
 */
export function uiCsp(host: string | undefined): string {
  const sockets = host && SAFE_HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    `connect-src 'self'${sockets}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
