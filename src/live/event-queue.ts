import type { Sequenced } from './bus.ts';

/**
 * The per-consumer buffer of every live client kind (docs/api.md#live-clients-one-budget: 50 events, oldest dropped). It
 * holds references to the bus's shared slices, so adding a batch costs the same whatever its size.
 * The limit applies while the consumer lags (its socket is full, or it is still busy with earlier
 * events): a consumer that has caught up gets a whole batch, however large, on its next turn.
 */
export class EventQueue {
  private chunks: { items: readonly Sequenced[]; start: number }[] = [];
  private count = 0;
  /** Events lost to the limit since the consumer started. */
  dropped = 0;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.count;
  }

  push(items: readonly Sequenced[], lagging = true): void {
    if (items.length === 0) return;
    if (!lagging) {
      this.chunks.push({ items, start: 0 });
      this.count += items.length;
      return;
    }
    // A batch larger than the whole buffer: keep only its newest events.
    const start = Math.max(0, items.length - this.capacity);
    this.dropped += start;
    this.chunks.push({ items, start });
    this.count += items.length - start;
    while (this.count > this.capacity) {
      const head = this.chunks[0] as { items: readonly Sequenced[]; start: number };
      const excess = this.count - this.capacity;
      const inHead = head.items.length - head.start;
      if (inHead <= excess) {
        this.chunks.shift();
        this.count -= inHead;
        this.dropped += inHead;
      } else {
        head.start += excess;
        this.count -= excess;
        this.dropped += excess;
      }
    }
  }

  shift(): Sequenced | undefined {
    const head = this.chunks[0];
    if (!head) return undefined;
    const item = head.items[head.start++];
    this.count--;
    if (head.start >= head.items.length) this.chunks.shift();
    return item;
  }

  clear(): void {
    this.chunks = [];
    this.count = 0;
  }
}
