/**
 * A stdio MCP server's stdout split into messages (src/health/stdio-process.ts), against the
 * splitter it replaced as the baseline: both are fed the chunks a real child process's pipe
 * delivered for the same output (captured once), and the event loop's time each takes is printed
 * side by side, best of five. The outputs: one message of 1, 4 and 9 MB (a tools/list with a long
 * description), and 20,000 small messages.
 *
 *   node --import tsx bench/stdio-lines.ts
 */
import { spawn } from 'node:child_process';
import { StdioProcess } from '../src/health/stdio-process.ts';

/** The splitter before 2026-11-28: one growing string, searched from its start for each chunk. */
function baseline(onMessage: (m: unknown) => void): (chunk: string) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    if (buffer.length > 10 * 1024 * 1024) {
      buffer = '';
      return;
    }
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (line.trim() !== '') onMessage(JSON.parse(line));
    }
  };
}

function current(onMessage: (m: unknown) => void): (chunk: string) => void {
  const proc = new StdioProcess({
    command: 'unused',
    onMessage,
    onExit: () => {},
    onError: () => {},
  }) as unknown as { read(chunk: string): void };
  return (chunk) => proc.read(chunk);
}

/** The chunks a child's stdout pipe delivers for `text`, as the health checks read them (utf8). */
function captureChunks(text: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const chunks: string[] = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => chunks.push(c));
    child.on('error', reject);
    child.on('close', () => resolve(chunks));
    child.stdin.end(text);
  });
}

const message = (id: number, size: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: { tools: [{ name: 't', description: 'd'.repeat(size) }] },
  });
const outputs: [string, string][] = [
  ...[1, 4, 9].map((mb): [string, string] => [
    `one ${mb} MB message`,
    `${message(1, mb * 1024 * 1024)}\n`,
  ]),
  [
    '20,000 small messages',
    Array.from({ length: 20_000 }, (_, i) => `${message(i, 40)}\n`).join(''),
  ],
];

console.log('| output | chunks | baseline (ms) | current (ms) |');
console.log('|---|---|---|---|');
for (const [name, text] of outputs) {
  const chunks = await captureChunks(text);
  const best = (make: typeof baseline) => {
    let min = Infinity;
    for (let run = 0; run < 5; run++) {
      let got = 0;
      const read = make(() => got++);
      const t0 = performance.now();
      for (const c of chunks) read(c);
      min = Math.min(min, performance.now() - t0);
      if (got === 0) throw new Error(`${name}: no message read`);
    }
    return min.toFixed(1);
  };
  console.log(`| ${name} | ${chunks.length} | ${best(baseline)} | ${best(current)} |`);
}
