import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenLoopback } from '../fixtures/mcp/listen.ts';
import { serveStreamable } from '../fixtures/mcp/http-fixtures.ts';

/**
 * SDK fixture MCP servers over streamable HTTP at `/<name>/mcp`, each of which a test can switch
 * between up, failing (HTTP 503 to everything) and slow (answers after a delay), and whose tool
 * list comes from a file the test may rewrite (drift).
 */
export interface SwitchableMcp {
  urlOf(name: string): string;
  fail(name: string, failing: boolean): void;
  delay(name: string, ms: number): void;
  toolsFile(name: string, file: string): void;
  close(): Promise<void>;
}

export async function startSwitchableMcp(): Promise<SwitchableMcp> {
  const failing = new Set<string>();
  const delays = new Map<string, number>();
  const files = new Map<string, string>();
  const timers = new Set<NodeJS.Timeout>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const name = new URL(req.url ?? '/', 'http://fixture').pathname.split('/')[1] ?? '';
    if (failing.has(name)) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('maintenance');
      return;
    }
    const ms = delays.get(name) ?? 0;
    if (ms > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => (timers.delete(t), resolve()), ms);
        timers.add(t);
      });
    }
    await serveStreamable(req, res, { toolsFile: files.get(name) });
  };
  const http = await listenLoopback(handle);
  return {
    urlOf: (name) => `http://127.0.0.1:${http.port}/${name}/mcp`,
    fail: (name, on) => void (on ? failing.add(name) : failing.delete(name)),
    delay: (name, ms) => void delays.set(name, ms),
    toolsFile: (name, file) => void files.set(name, file),
    close: async () => {
      for (const t of timers) clearTimeout(t);
      await http.close();
    },
  };
}
