/**
 * What a failed statement may say outside the server log. drizzle wraps every driver error in one
 * whose message is `Failed query: <SQL>\nparams: <every parameter>`: for a health check that is up
 * to the whole tool list a server sent. Text that is stored or answered (a scan's `error`, a
 * check's) says only that the database failed and its SQLSTATE; the full error goes to the log
 * (logger.ts strips the parameters there too).
 */
export function storeErrorText(err: unknown): string | null {
  let sawQuery = false;
  let e = err as { message?: unknown; code?: unknown; cause?: unknown } | null | undefined;
  for (let i = 0; i < 6 && e && typeof e === 'object'; i++, e = e.cause as typeof e) {
    if (typeof e.message === 'string' && e.message.startsWith('Failed query')) sawQuery = true;
    if (typeof e.code === 'string' && SQLSTATE.test(e.code))
      return `database error (SQLSTATE ${e.code})`;
  }
  return sawQuery ? 'database error' : null;
}

/** SQLSTATE: five digits or capital letters with at least one digit, e.g. 22P05 (not errno's EPIPE). */
const SQLSTATE = /^(?=[A-Z]*\d)[0-9A-Z]{5}$/;

/** A short, fixed text for any internal failure: the database's coded one, else `internal error`. */
export function internalErrorText(err: unknown): string {
  return `${storeErrorText(err) ?? 'internal error'}; details are in the server log`;
}

/**
 * The database's own error, for the log (storeErrorText above is what may be said outside it):
 * drizzle's wrapping message holds the whole statement and its parameters (up to the body limit),
 * so only the innermost code and message are kept.
 */
export function databaseReason(err: unknown): { message: string; code?: string } {
  let e = err as { message?: unknown; code?: unknown; cause?: unknown } | null;
  for (
    let i = 0;
    i < 5 && e && typeof e.code !== 'string' && e.cause && typeof e.cause === 'object';
    i++
  ) {
    e = e.cause as typeof e;
  }
  const message = typeof e?.message === 'string' ? e.message : 'unknown error';
  return {
    message: message.length > 300 ? `${message.slice(0, 300)}…` : message,
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  };
}
