import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SpyglassError } from '../errors.ts';
import { isTransient } from '../store/db.ts';
import { databaseReason } from '../store/store-error.ts';

/** Maps every error to docs/api.md's `{"detail": ...}` body; internals never reach the client. */
export function handleError(
  err: FastifyError | SpyglassError | Error,
  req: FastifyRequest,
  reply: FastifyReply,
): void {
  if (err instanceof SpyglassError) {
    if (err.retryAfter !== undefined) void reply.header('Retry-After', String(err.retryAfter));
    void reply.status(err.status).send({ detail: err.detail });
    return;
  }
  if (isTransient(err)) {
    // The database is restarting or unreachable: a retryable condition, not a server bug. Logged
    // with the driver's reason (connection refused, terminated by the server...), not the
    // statement and its parameters.
    req.log.warn({ err: databaseReason(err) }, 'database unavailable');
    void reply
      .header('Retry-After', '5')
      .status(503)
      .send({ detail: 'storage unavailable, retry later' });
    return;
  }
  const fe = err as FastifyError;
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    void reply.status(status).send({ detail: clientMessage(fe) });
    return;
  }
  req.log.error({ err }, 'unhandled error');
  void reply.status(500).send({ detail: 'internal error' });
}

function clientMessage(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return `malformed JSON: ${err.message}`;
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'request body too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `unsupported content type`;
    default:
      return err.message;
  }
}
