/**
 * The content type Fastify gives a returned object: what a REST body written as bytes by its
 * service (the session tree, the sessions and spans lists) is sent as, so that clients see the same
 * headers either way (docs/architecture.md, hot reads).
 */
export const JSON_TYPE = 'application/json; charset=utf-8';
