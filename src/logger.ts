import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Structured JSON logs on stderr; stdout stays free for CLI output. Errors are logged without the
 * SQL and parameters database drivers attach to them (`query`, `params`, `parameters`): a failed
 * statement would otherwise write its whole payload, span bodies included, into the log.
 * `destination` replaces stderr (an in-process CLI run writes its logs to its own stderr).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    { level, base: { service: 'spyglass' }, serializers: { err: safeErr } },
    destination ?? pino.destination(2),
  );
}

const PAYLOAD_FIELDS = ['query', 'params', 'parameters'];
/** From `params:` to the first stack frame, the cause, or the end. */
const PARAMS_LINE = /\nparams: [\s\S]*?(?=\n {4}at |\ncaused by: |$)/;

export function safeErr(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const out = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  for (const f of PAYLOAD_FIELDS) delete out[f];
  // drizzle repeats the parameters in its message (`Failed query: …\nparams: …`), and so in the stack.
  for (const f of ['message', 'stack']) {
    if (typeof out[f] === 'string')
      out[f] = (out[f] as string).replace(PARAMS_LINE, '\nparams: (not logged)');
  }
  if (out.cause && typeof out.cause === 'object')
    out.cause = strip(out.cause as Record<string, unknown>);
  return out;
}

function strip(cause: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const copy = { ...cause };
  for (const f of PAYLOAD_FIELDS) delete copy[f];
  if (depth < 5 && copy.cause && typeof copy.cause === 'object')
    copy.cause = strip(copy.cause as Record<string, unknown>, depth + 1);
  return copy;
}
