import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface CapturedLog {
  logger: Logger;
  /** Every line logged so far, parsed. */
  lines: Record<string, any>[];
  /** The raw text logged so far (to show nothing secret or huge got in). */
  text(): string;
}

/** A real pino logger whose JSON lines are kept in memory (synchronously), for assertions. */
export function captureLog(level = 'info'): CapturedLog {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level }, stream);
  return {
    logger,
    get lines() {
      return raw
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, any>);
    },
    text: () => raw.join(''),
  };
}
