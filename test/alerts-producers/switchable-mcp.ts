import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenLoopback } from '../fixtures/mcp/listen.ts';
import { serveStreamable } from '../fixtures/mcp/http-fixtures.ts';

/**
 * SDK fixture MCP servers over streamable HTTP at `/<name>/mcp`, each of which a test can switch
 * between up, failing (HTTP 503 to everything) and slow, and whose tool list comes from a file the
 * test may rewrite (drift). Slowness is on a virtual clock, not a sleep: every request to a server
 * advances `clock()` by the cost the test set for it, and the server under test measures check
 * latency with that clock (HealthService.latencyClock). A check's latency is then exactly what the
 * test chose, however loaded the machine is.
 */
export interface SwitchableMcp {
  urlOf(name: string): string;
  fail(name: string, failing: boolean): void;
  /** Each request to `name` from now on takes `ms` on the virtual clock. */
  cost(name: string, ms: number): void;
  /** The virtual clock, in ms: hand it to HealthService.latencyClock. */
  clock(): number;
  toolsFile(name: string, file: string): void;
  close(): Promise<void>;
}

export async function startSwitchableMcp(): Promise<SwitchableMcp> {
  const failing = new Set<string>();
  const costs = new Map<string, number>();
  const files = new Map<string, string>();
  let now = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const name = new URL(req.url ?? '/', 'http://fixture').pathname.split('/')[1] ?? '';
    if (failing.has(name)) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('maintenance');
      return;
    }
    now += costs.get(name) ?? 0;
    await serveStreamable(req, res, { toolsFile: files.get(name) });
  };
  const http = await listenLoopback(handle);
  return {
    urlOf: (name) => `http://127.0.0.1:${http.port}/${name}/mcp`,
    fail: (name, on) => void (on ? failing.add(name) : failing.delete(name)),
    cost: (name, ms) => void costs.set(name, ms),
    clock: () => now,
    toolsFile: (name, file) => void files.set(name, file),
    close: () => http.close(),
  };
}
