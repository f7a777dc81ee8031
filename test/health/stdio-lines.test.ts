import { describe, expect, it } from 'vitest';
import { StdioProcess } from '../../src/health/stdio-process.ts';

/**
 * A stdio server's messages, read from a real child process's stdout: whole messages however the
 * pipe splits them, a message of 9 MB in one piece, a line that is not JSON skipped, and one over
 * the 10 MB limit reported once and dropped without losing the message after it.
 */
const NINE_MB = 9 * 1024 * 1024;
const ELEVEN_MB = 11 * 1024 * 1024;

const script = `
const out = (s) => new Promise((r) => (process.stdout.write(s) ? r() : process.stdout.once('drain', r)));
(async () => {
  await out('{"jsonrpc":"2.0","id":1,"result":{"d":"' + 'x'.repeat(${NINE_MB}) + '"}}\\r\\n');
  await out('\\n');
  await out('a log line, not JSON\\n{"jsonrpc":"2.0",');
  await out('"id":2,"result":{}}\\n');
  await out('{"jsonrpc":"2.0","id":3,"result":{"d":"' + 'y'.repeat(${ELEVEN_MB}) + '"}}\\n');
  await out('{"jsonrpc":"2.0","id":4,"result":{}}\\n');
  process.stdin.resume();
})();
`;

describe('a stdio server writing large messages', () => {
  it('reads a 9 MB message whole, skips what is not JSON, and drops one over 10 MB with one error', async () => {
    const messages: { id: number; result: { d?: string } }[] = [];
    const errors: string[] = [];
    let last!: () => void;
    const done = new Promise<void>((resolve) => (last = resolve));
    const proc = new StdioProcess({
      command: process.execPath,
      args: ['-e', script],
      onMessage: (m) => {
        messages.push(m as (typeof messages)[number]);
        if ((m as { id: number }).id === 4) last();
      },
      onExit: () => {},
      onError: (err) => errors.push(err.message),
    });
    await proc.start();
    try {
      await done;
    } finally {
      await proc.stop(true);
    }
    expect(messages.map((m) => m.id)).toEqual([1, 2, 4]);
    expect(messages[0]?.result.d).toHaveLength(NINE_MB);
    expect(errors).toEqual(['the server wrote a message larger than 10 MB']);
    // What is not JSON is kept for the error message of a request that then times out.
    expect(proc.stderrTail).toContain('[stdout] a log line, not JSON');
  });
});
