import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

export interface GraphiqlPage {
  html: string;
  /** Allows exactly the page's own inline script (by hash), its blob: workers and same-origin calls. */
  csp: string;
}

let page: Promise<GraphiqlPage> | null = null;

/**
 * GraphiQL as one self-contained page from the @graphql-yoga/render-graphiql package: no CDN, so
 * it works offline. The page holds no data; the key goes in its Headers tab (`X-API-Key`) and is
 * sent with every request, over SSE subscriptions too. Headers are not persisted in the browser.
 */
export function graphiqlPage(): Promise<GraphiqlPage> {
  return (page ??= render().catch((err: unknown) => {
    page = null;
    throw err;
  }));
}

/**
 * Loaded on the first request for the page: the package is 9 MB of JavaScript held as a string,
 * which cost every server about 30 MB of heap and part of its start-up when imported with the rest.
 */
async function render(): Promise<GraphiqlPage> {
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const html = renderGraphiQL({
    title: 'Spyglass GraphiQL',
    endpoint: '/graphql',
    headers: JSON.stringify({ 'X-API-Key': '' }, null, 2),
    shouldPersistHeaders: false,
    defaultEditorToolsVisibility: 'headers',
    subscriptionsProtocol: 'SSE',
    defaultQuery:
      '# Put your API key in the Headers tab below (not needed in local mode without keys).\n{\n  projects {\n    id\n    name\n  }\n}\n',
  });
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] as string)
        .digest('base64')}'`,
  );
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.join(' ')}`,
    // Monaco injects style elements at run time; styles cannot run code.
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    'worker-src blob:',
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, csp };
}

/** A browser opening /graphql: GET asking for HTML and carrying no operation. */
export function wantsGraphiql(req: FastifyRequest): boolean {
  const q = req.query;
  const operation = typeof q === 'object' && q !== null && 'query' in q && Boolean(q.query);
  return req.method === 'GET' && (req.headers.accept ?? '').includes('text/html') && !operation;
}
