import { parentPort } from 'node:worker_threads';
import { parseToParts } from './json-parts.ts';

/** A thread of src/receivers/json-pool.ts: UTF-8 bytes in, parts of JSON text out. */
parentPort?.on('message', (task: { id: number; body: ArrayBuffer }) => {
  const result = parseToParts(Buffer.from(task.body).toString('utf8'));
  parentPort?.postMessage({ id: task.id, result });
});
