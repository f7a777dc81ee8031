import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  layoutLineage,
  shouldUseWorker,
  strokeWidth,
  type LineageInput,
} from '../../ui/src/lib/lineage-layout.ts';
import { callWorker, serveInWorker } from '../../ui/src/lib/worker-rpc.ts';

const lineage: LineageInput = {
  nodes: [
    { id: 'agent:planner', name: 'planner', type: 'agent', calls: 10, errors: 1 },
    { id: 'agent:coder', name: 'coder', type: 'agent', calls: 4, errors: 0 },
    { id: 'server:filesystem', name: 'filesystem', type: 'server', calls: 12, errors: 2 },
  ],
  edges: [
    { source: 'agent:planner', target: 'agent:coder', type: 'handoff', calls: 1, errors: 0 },
    { source: 'agent:planner', target: 'server:filesystem', type: 'calls', calls: 100, errors: 25 },
    { source: 'agent:coder', target: 'server:filesystem', type: 'calls', calls: 4, errors: 0 },
    { source: 'agent:coder', target: 'server:gone', type: 'calls', calls: 0, errors: 0 },
    { source: 'agent:coder', target: 'agent:planner', type: 'handoff', calls: 1, errors: 0 },
  ],
};

describe('layoutLineage', () => {
  it('places every node, routes every edge, including loops and unknown targets', () => {
    const out = layoutLineage(lineage);
    expect(out.nodes.map((n) => n.id).sort()).toEqual([
      'agent:coder',
      'agent:planner',
      'server:filesystem',
      'server:gone',
    ]);
    for (const n of out.nodes) {
      expect(Number.isFinite(n.x) && Number.isFinite(n.y)).toBe(true);
      expect(n.x - n.width / 2).toBeGreaterThanOrEqual(0);
      expect(n.x + n.width / 2).toBeLessThanOrEqual(out.width);
    }
    expect(out.edges).toHaveLength(5);
    for (const e of out.edges) expect(e.points.length).toBeGreaterThanOrEqual(2);
    expect(out.nodes.find((n) => n.id === 'server:gone')!.type).toBe('unknown');
    // Left to right: the planner ranks before the server it calls.
    const x = (id: string) => out.nodes.find((n) => n.id === id)!.x;
    expect(x('agent:planner')).toBeLessThan(x('server:filesystem'));
  });

  it('weights edges by calls and errors', () => {
    const out = layoutLineage(lineage, { minStroke: 1, maxStroke: 9 });
    const busy = out.edges[1]!;
    expect(busy.strokeWidth).toBe(9);
    expect(busy.errorRate).toBe(0.25);
    expect(out.edges[2]!.strokeWidth).toBeCloseTo(1 + 8 * Math.sqrt(0.04));
    expect(out.edges[3]).toMatchObject({ strokeWidth: 1, errorRate: 0 });
    expect(strokeWidth(5, 0)).toBe(1);
  });

  it('sends large graphs to the worker', () => {
    expect(shouldUseWorker(lineage)).toBe(false);
    const nodes = Array.from({ length: 200 }, (_, i) => ({
      id: `n${i}`,
      name: `n${i}`,
      type: 'agent',
      calls: 1,
      errors: 0,
    }));
    expect(shouldUseWorker({ nodes, edges: [] })).toBe(true);
  });
});

describe('worker-rpc', () => {
  it('answers a call through a message channel and reports a thrown error', async () => {
    const { port1, port2 } = new MessageChannel();
    try {
      serveInWorker(port2, (req: { input: LineageInput }) => {
        if (!req.input.nodes.length) throw new Error('empty graph');
        return layoutLineage(req.input);
      });
      port1.start();
      port2.start();
      const out = await callWorker<{ input: LineageInput }, ReturnType<typeof layoutLineage>>(
        port1,
        { input: lineage },
      );
      expect(out.nodes).toHaveLength(4);
      await expect(callWorker(port1, { input: { nodes: [], edges: [] } })).rejects.toThrow(
        'empty graph',
      );
    } finally {
      port1.close();
      port2.close();
    }
  });
});
