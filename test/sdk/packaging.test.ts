import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson } from '../helpers/spans.ts';
import { consumerDir, ROOT } from './consumer-dir.ts';

const DIST = join(ROOT, 'sdk/dist');
const run = promisify(execFile);

/** Every module specifier of a compiled file: static imports and re-exports, `import type` and dynamic import(). */
function specifiers(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(
    /(?:^|[\s;}])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"`]([^'"`]+)['"`]\s*\)/gm,
  )) {
    out.push((m[1] ?? m[2] ?? m[3])!);
  }
  return out;
}

/** Module specifiers of static imports and re-exports only (no import()). */
const staticImports = (source: string): string[] =>
  specifiers(source.replace(/import\(\s*['"`][^'"`]+['"`]\s*\)/g, ''));

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' });
  dir = consumerDir();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server?.dispose();
});

describe('the published SDK (spyglass-agent-sdk)', () => {
  it('loads only its own files, node: built-ins and MCP types', () => {
    const files = readdirSync(DIST, { recursive: true, withFileTypes: true }).filter(
      (e) => e.isFile() && /\.(js|d\.ts)$/.test(e.name),
    );
    expect(files.length).toBeGreaterThan(10);
    const outside: string[] = [];
    const dynamicIoredis: string[] = [];
    for (const f of files) {
      const path = join(f.parentPath, f.name);
      const source = readFileSync(path, 'utf8');
      for (const spec of specifiers(source)) {
        if (spec.startsWith('.')) {
          if (relative(DIST, resolve(dirname(path), spec)).startsWith('..'))
            outside.push(`${f.name}: ${spec}`);
        } else if (spec.startsWith('node:')) {
          if (!builtinModules.includes(spec.slice(5))) outside.push(`${f.name}: ${spec}`);
        } else if (
          spec === 'ioredis' &&
          f.name.endsWith('.js') &&
          !staticImports(source).includes('ioredis')
        ) {
          // Shared breakers load ioredis with import() only when the option is used (a dependency of the package).
          dynamicIoredis.push(f.name);
        } else if (!(f.name.endsWith('.d.ts') && spec.startsWith('@modelcontextprotocol/sdk/'))) {
          outside.push(`${f.name}: ${spec}`);
        }
      }
    }
    expect(outside).toEqual([]);
    expect(dynamicIoredis).toEqual(['shared-redis.js']);
    // The walk sees the imports it must see.
    expect(specifiers(readFileSync(join(DIST, 'index.js'), 'utf8'))).toContain('./spyglass.js');
  });

  it('runs a plain Node ESM agent (no tsx) that imports spyglass-agent-sdk and reports to a real server', async () => {
    writeFileSync(
      join(dir, 'agent.mjs'),
      `import { Spyglass, HEALTH_TAGS, DEFAULT_PREVENTION, PreventionError } from 'spyglass-agent-sdk';
const sg = new Spyglass({ agentName: 'plain-node' });
const id = await sg.session({ agentName: 'plain-node' }, async (session) => {
  const sum = await sg.guard({ serverName: 'calc', toolName: 'add', args: { a: 1, b: 2 } }, () => 3);
  if (sum !== 3) throw new Error('wrong result');
  return session.sessionId;
});
await sg.shutdown();
const loaded = Object.keys(await import('node:module').then((m) => m.createRequire(import.meta.url).cache ?? {}));
console.log(JSON.stringify({ id, stats: sg.stats(), tags: HEALTH_TAGS.length, loops: DEFAULT_PREVENTION.loop_threshold, error: typeof PreventionError, loaded }));
`,
    );
    const { stdout } = await run(process.execPath, ['agent.mjs'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', SPYGLASS_URL: server.httpUrl },
      timeout: 30_000,
    });
    const out = JSON.parse(stdout.trim()) as {
      id: string;
      stats: { sent: number; buffered: number };
      tags: number;
      loops: number;
      error: string;
      loaded: string[];
    };
    expect(out).toMatchObject({
      stats: { sent: 2, buffered: 0 },
      tags: 9,
      loops: 5,
      error: 'function',
      loaded: [],
    });
    const spans = await getJson(`${server.httpUrl}/api/traces/spans?session_id=${out.id}`);
    expect((spans.json as { tool_name: string }[]).map((s) => s.tool_name).sort()).toEqual([
      'add',
      'session',
    ]);
  });
  it('sends buffered spans when a plain Node program just ends (beforeExit), without flush or shutdown', async () => {
    writeFileSync(
      join(dir, 'exits.mjs'),
      `import { Spyglass } from 'spyglass-agent-sdk';
const sg = new Spyglass({ agentName: 'exits', flushIntervalMs: 3_600_000 });
await sg.guard({ serverName: 'calc', toolName: 'exit-add', args: {} }, () => 3);
`,
    );
    await run(process.execPath, ['exits.mjs'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', SPYGLASS_URL: server.httpUrl },
      timeout: 30_000,
    });
    const spans = await getJson(`${server.httpUrl}/api/traces/spans?tool_name=exit-add`);
    expect(spans.json).toHaveLength(1);
  });
});
