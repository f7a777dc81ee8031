import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/health/limiter.ts';

/** The health-check limiter shares its slots fairly between projects (round robin, FIFO within one). */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe('health-check limiter', () => {
  it('serves waiting projects in turn, not in arrival order', async () => {
    const limiter = new Limiter(1);
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const job = (project: string, id: string) =>
      limiter.run(project, async () => {
        started.push(id);
        const g = gate();
        gates.set(id, g);
        await g.opened;
      });
    const all = [
      job('B', 'b1'),
      job('B', 'b2'),
      job('B', 'b3'),
      job('A', 'a1'),
      job('B', 'b4'),
      job('C', 'c1'),
    ];
    // b1 runs; as each finishes, the next project in line gets the slot.
    for (const id of ['b1', 'b2', 'a1', 'c1', 'b3', 'b4']) {
      await expect.poll(() => started.at(-1)).toBe(id);
      gates.get(id)?.open();
    }
    await Promise.all(all);
    expect(started).toEqual(['b1', 'b2', 'a1', 'c1', 'b3', 'b4']);
  });

  it('keeps reserved slots for other projects: a busy project never takes the last ones', async () => {
    const limiter = new Limiter(4, 2);
    const release = gate();
    const running = () => limiter.running;
    const b = Array.from({ length: 10 }, () => limiter.run('B', () => release.opened));
    expect(running()).toBe(2);
    expect(limiter.queued).toBe(8);
    // Project A starts at once although B has eight checks waiting.
    let aRan = false;
    await limiter.run('A', async () => {
      aRan = true;
    });
    expect(aRan).toBe(true);
    release.open();
    await Promise.all(b);
    expect(limiter.running).toBe(0);
    expect(limiter.queued).toBe(0);
  });
});
