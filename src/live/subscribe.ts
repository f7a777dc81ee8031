import { SpyglassError } from '../errors.ts';
import type { EventBus, Interest, LiveEvent } from './bus.ts';
import type { DeliveryBudget } from './delivery-share.ts';
import { EventQueue } from './event-queue.ts';

export interface EventStream<T> extends AsyncIterableIterator<T> {
  /** Ends the stream from the server side: the consumer's next read fails with `reason`. */
  end(reason: string): void;
}

export interface StreamOptions {
  /** Events held for a slow consumer; the oldest is dropped beyond it. */
  buffer: number;
  /**
   * The app's live delivery budget: the stream waits for its credit, and consumers are woken
   * through it after the publishing code has returned, all in one macrotask.
   */
  delivery: DeliveryBudget;
  /** Runs once however the stream ends. */
  onClose: () => void;
  /**
   * While the consumer's socket cannot take more, a promise that settles when it can: events then
   * wait in the buffer (and the oldest are dropped) instead of piling up in the socket's.
   */
  ready?: () => Promise<void> | undefined;
}

/**
 * Bus events as an async iterator for GraphQL subscriptions, with the same bounded buffer as an
 * SSE client: a slow consumer loses its oldest events, never the server's memory.
 */
export function iterateEvents<T extends LiveEvent>(
  bus: EventBus,
  interest: Interest,
  accept: (e: LiveEvent) => e is T,
  opts: StreamOptions,
): EventStream<T> {
  const { onClose, ready, delivery } = opts;
  const queue = new EventQueue(opts.buffer);
  let wake: (() => void) | null = null;
  let done = false;
  let failure: string | null = null;
  const unsubscribe = bus.subscribeBatches(interest, (items) => {
    // Waiting in next() means caught up: the whole batch; otherwise the consumer lags.
    queue.push(items, wake === null);
    if (wake) delivery.wakeLater(wake);
  });
  const close = () => {
    if (done) return;
    done = true;
    unsubscribe();
    queue.clear();
    onClose();
    if (wake) delivery.wakeLater(wake);
  };
  const finish = (): Promise<IteratorResult<T>> => {
    close();
    return Promise.resolve({ value: undefined, done: true });
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<T>> {
      for (;;) {
        if (failure !== null) {
          const reason = failure;
          failure = null;
          throw new SpyglassError('unauthenticated', reason);
        }
        if (done) return { value: undefined, done: true };
        const congested = ready?.() ?? (queue.size > 0 ? delivery.deliveryPaused() : null);
        if (congested) {
          await congested;
          continue;
        }
        const item = queue.shift();
        if (item) {
          if (accept(item.event)) return { value: item.event, done: false };
          continue;
        }
        await new Promise<void>((r) => (wake = r));
        wake = null;
      }
    },
    return: finish,
    throw: finish,
    end(reason: string) {
      if (done) return;
      failure = reason;
      close();
    },
  };
}
