import type { FastifyInstance } from 'fastify';

/** Headers every API response carries: no sniffing, no framing, no caching of authenticated data. */
export function addSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_req, reply, payload) => {
    void reply.header('X-Content-Type-Options', 'nosniff');
    void reply.header('X-Frame-Options', 'DENY');
    void reply.header('Referrer-Policy', 'no-referrer');
    void reply.header('Cross-Origin-Resource-Policy', 'same-origin');
    if (!reply.hasHeader('Cache-Control')) void reply.header('Cache-Control', 'no-store');
    // Everything is data only; the GraphiQL page sets its own policy (src/graphql/graphiql.ts).
    if (!reply.hasHeader('Content-Security-Policy'))
      void reply.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    return payload;
  });
}
