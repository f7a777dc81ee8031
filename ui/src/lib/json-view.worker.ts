/** Formats large payloads off the main thread: callWorker(worker, { value, opts }). */
import { prepareJson, type JsonViewOptions } from './json-view.ts';
import { serveInWorker } from './worker-rpc.ts';

serveInWorker(self, (req: { value: unknown; opts?: JsonViewOptions }) =>
  prepareJson(req.value, req.opts),
);
