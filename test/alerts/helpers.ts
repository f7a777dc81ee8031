import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FireInput } from '../../src/model/alert.ts';

/** A chat webhook receiver on 127.0.0.1: keeps every body, answers with the next scripted status. */
export interface Receiver {
  url: string;
  bodies: any[];
  /** Statuses for the next requests, in order; 200 once they run out. */
  script: number[];
  close(): Promise<void>;
  waitFor(n: number, ms?: number): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const bodies: any[] = [];
  const script: number[] = [];
  let waiters: (() => void)[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      const status = script.shift() ?? 200;
      // A 429 asks for two minutes, longer than the sender's cap.
      res
        .writeHead(status, {
          'content-type': 'text/plain',
          ...(status === 429 ? { 'retry-after': '120' } : {}),
        })
        .end(status === 200 ? 'ok' : 'internal secret details');
      for (const w of waiters) w();
      waiters = [];
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks/T000/B000/abcd1234`,
    bodies,
    script,
    close: () => new Promise<void>((r) => server.close(() => r())),
    waitFor: async (n, ms = 5000) => {
      const deadline = Date.now() + ms;
      while (bodies.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${bodies.length} of ${n} bodies`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, 50);
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
    },
  };
}

/** A spyglass.yaml that opens 127.0.0.1 to outbound requests (the receiver), plus extra YAML. */
export function configFile(extra = '', allowLoopback = true): string {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-alerts-'));
  const file = join(dir, 'spyglass.yaml');
  writeFileSync(
    file,
    `${allowLoopback ? "network:\n  allow_private_targets: ['127.0.0.1/32']\n" : ''}${extra}`,
  );
  return file;
}

export function fireInput(over: Partial<FireInput> = {}): FireInput {
  return {
    type: 'mcp_down',
    severity: 'critical',
    title: 'MCP server files is down',
    message: '3 consecutive checks failed.',
    projectId: 'default',
    serverName: 'files',
    dedupKey: 'mcp_down:files',
    dedupScope: 'open',
    fields: { consecutive_failures: 3 },
    ...over,
  };
}

/** Polls `fn` until it returns a truthy value (bounded). */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  ms = 5000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
