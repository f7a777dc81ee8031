/** Lays out large lineage graphs off the main thread: callWorker(worker, { input, opts }). */
import { layoutLineage, type LayoutOptions, type LineageInput } from './lineage-layout.ts';
import { serveInWorker } from './worker-rpc.ts';

serveInWorker(self, (req: { input: LineageInput; opts?: LayoutOptions }) =>
  layoutLineage(req.input, req.opts),
);
