import { pino, type Logger } from 'pino';

/** Structured JSON logs on stderr; stdout stays free for CLI output. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'spyglass' } }, pino.destination(2));
}
