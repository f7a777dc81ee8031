import type { EventBus, LiveEvent } from './bus.ts';

/**
 * Bus events as an async iterator for GraphQL subscriptions, with the same bounded buffer as an
 * SSE client: a slow consumer loses its oldest events, never the server's memory.
 */
export function iterateEvents<T extends LiveEvent>(bus: EventBus, accept: (e: LiveEvent) => e is T, buffer = 50): AsyncIterableIterator<T> {
  const queue: T[] = [];
  let wake: (() => void) | null = null;
  let done = false;
  const unsubscribe = bus.subscribe((e) => {
    if (!accept(e)) return;
    queue.push(e);
    if (queue.length > buffer) queue.shift();
    wake?.();
  });
  const finish = (): Promise<IteratorResult<T>> => {
    done = true;
    unsubscribe();
    wake?.();
    return Promise.resolve({ value: undefined, done: true });
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<T>> {
      while (!done) {
        const item = queue.shift();
        if (item) return { value: item, done: false };
        await new Promise<void>((r) => (wake = r));
        wake = null;
      }
      return { value: undefined, done: true };
    },
    return: finish,
    throw: finish,
  };
}
