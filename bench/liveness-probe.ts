/**
 * The live-load bench's liveness probe, in a process of its own (started by live-load.ts with an
 * IPC channel), as a kubelet or a load balancer probes: the load generator's own event loop must not
 * add to the latency it reports. Messages: out `{ready}` once listening, then in `{start: {port,
 * everyMs}}`, `{stop}`; out `{answers}` ([wall-clock ms sent, ms to answer], one per probe
 * answered; the wall clock matches the server's `--stall-trace` record).
 */
import { request } from 'node:http';

let stopped = true;
const answers: [number, number][] = [];

function once(port: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const sent = Date.now();
    const t = performance.now();
    const req = request(
      { host: '127.0.0.1', port, path: '/api/liveness', timeout: 10_000 },
      (res) => {
        res.resume();
        res.on('end', () => {
          answers.push([sent, performance.now() - t]);
          resolve();
        });
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve());
    req.end();
  });
}

process.on('message', (m: { start?: { port: number; everyMs: number }; stop?: true }) => {
  if (m.start) {
    const { port, everyMs } = m.start;
    stopped = false;
    answers.length = 0;
    void (async () => {
      while (!stopped) {
        await once(port);
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
  }
  if (m.stop) {
    stopped = true;
    process.send?.({ answers });
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: true });
