import type { LineageInput, LineageLayout } from '../../lib/lineage-layout.ts';
import { callWorker } from '../../lib/worker-rpc.ts';

/**
 * Lays the graph out: on the main thread when small, in lineage-layout.worker.ts when
 * shouldUseWorker() says it is large. The layout module (and dagre with it) is loaded on first
 * use, so the other pages do not carry it. The worker is a bundled file of this origin
 * (`worker-src` falls back to `'self'`); a blob: worker would be refused by the CSP.
 */
export async function layOut(input: LineageInput): Promise<LineageLayout> {
  const lib = await import('../../lib/lineage-layout.ts');
  if (!lib.shouldUseWorker(input)) return lib.layoutLineage(input);
  const worker = new Worker(new URL('../../lib/lineage-layout.worker.ts', import.meta.url), {
    type: 'module',
  });
  try {
    return await callWorker<{ input: LineageInput }, LineageLayout>(worker, { input });
  } finally {
    worker.terminate();
  }
}
