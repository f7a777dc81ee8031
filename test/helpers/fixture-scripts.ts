import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * The argv (after `node`) that runs test/fixtures/mcp/<name>.ts, compiled: e.g.
 * `{ command: process.execPath, args: fixtureArgs('stdio-server') }` in a servers[] entry.
 */
export function fixtureArgs(name: string): string[] {
  return [join(inject('fixtureScripts'), `${name}.js`)];
}
