import type { FastifyInstance } from 'fastify';

/** Headers every API response carries: no sniffing, no framing, no caching of authenticated data. */
export function addSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    void reply.header('X-Content-Type-Options', 'nosniff');
    void reply.header('X-Frame-Options', 'DENY');
    void reply.header('Referrer-Policy', 'no-referrer');
    void reply.header('Cross-Origin-Resource-Policy', 'same-origin');
    if (!reply.hasHeader('Cache-Control')) void reply.header('Cache-Control', 'no-store');
    // GraphiQL (GET /graphql from a browser) needs its scripts; everything else is data only.
    if (!req.url.startsWith('/graphql')) void reply.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    return payload;
  });
}
