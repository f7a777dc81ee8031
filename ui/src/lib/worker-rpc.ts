/**
 * The two ends of a one-function Web Worker: `serveInWorker(fn)` inside the worker file,
 * `callWorker(worker, input)` on the page. Requests carry an id so answers cannot cross, and a
 * thrown error comes back as a rejected promise. Typed structurally so pure modules stay DOM-free.
 */

/** A Worker, a worker's `self` or a MessagePort. The event is `any` so DOM's and Node's fit. */
export interface Port {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: any) => void): void;
  removeEventListener(type: 'message', listener: (event: any) => void): void;
}

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

let nextId = 1;

export function callWorker<I, O>(worker: Port, input: I): Promise<O> {
  const id = nextId++;
  return new Promise<O>((resolve, reject) => {
    const onMessage = (event: { data: unknown }) => {
      const reply = event.data as Reply;
      if (reply?.id !== id) return;
      worker.removeEventListener('message', onMessage);
      if (reply.ok) resolve(reply.value as O);
      else reject(new Error(reply.error));
    };
    worker.addEventListener('message', onMessage);
    worker.postMessage({ id, input });
  });
}

export function serveInWorker<I, O>(scope: Port, fn: (input: I) => O): void {
  scope.addEventListener('message', (event) => {
    const { id, input } = event.data as { id: number; input: I };
    try {
      scope.postMessage({ id, ok: true, value: fn(input) } satisfies Reply);
    } catch (err) {
      scope.postMessage({
        id,
        ok: false,
        error: String((err as Error)?.message ?? err),
      } satisfies Reply);
    }
  });
}
