import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** A directory like a user's project: node_modules/spyglass-agent-sdk links to this checkout's SDK package (its sdk/dist build). */
export function consumerDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-sdk-consumer-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(ROOT, 'sdk'), join(dir, 'node_modules/spyglass-agent-sdk'), 'dir');
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  return dir;
}
