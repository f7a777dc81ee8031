import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  nextPin,
  poisoningCheck,
  rugPullCheck,
  shadowingCheck,
} from '../../src/security/poisoning/index.ts';
import type { CheckTarget } from '../../src/model/health.ts';
import type { Observation } from '../../src/security/types.ts';
import { asPeer, context, observeOk, referenceTarget } from '../fixtures/mcp/poison/targets.ts';

/**
 * The false-positive guard: the real reference servers, with their prompts, resources and
 * instructions, configured together in one project. None of the poisoning, shadowing or rug-pull
 * rules may report anything on them, at any severity.
 */
let dir: string;
let targets: CheckTarget[];
const seen = new Map<string, Observation>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-ref-'));
  targets = [
    referenceTarget('everything', 'server-everything', ['stdio']),
    referenceTarget('memory', 'server-memory', [], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }),
    referenceTarget('filesystem', 'server-filesystem', [dir]),
    referenceTarget('sequential-thinking', 'server-sequential-thinking'),
  ];
  // One at a time: the machine is shared, and each server is quick to list.
  for (const t of targets) seen.set(t.name, await observeOk(t));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reference servers', () => {
  it('were observed in full: tools, and prompts, resources and instructions where offered', () => {
    const everything = seen.get('everything');
    expect(everything?.tools.length).toBeGreaterThanOrEqual(10);
    expect(everything?.prompts?.length).toBeGreaterThan(0);
    expect(everything?.resources?.length).toBeGreaterThan(0);
    expect(everything?.instructions).toBeTruthy();
    expect(seen.get('memory')?.tools.length).toBeGreaterThan(0);
    expect(seen.get('filesystem')?.tools.length).toBeGreaterThan(0);
    expect(seen.get('sequential-thinking')?.tools.length).toBe(1);
  });

  it.each(['everything', 'memory', 'filesystem', 'sequential-thinking'])(
    '%s: no OWASP-MCP-03 finding from any rule',
    (name) => {
      const obs = seen.get(name) as Observation;
      const peers = [...seen].filter(([n]) => n !== name).map(([n, o]) => asPeer(n, o));
      const target = targets.find((t) => t.name === name) as CheckTarget;
      const ctx = context(target, obs, { peers, pin: nextPin(null, obs, new Date()) });
      const findings = [...poisoningCheck(ctx), ...shadowingCheck(ctx), ...rugPullCheck(ctx)];
      expect(findings, JSON.stringify(findings, null, 1)).toEqual([]);
    },
  );

  it('server-everything pinned on one run is unchanged on the next (no rug pull across restarts)', async () => {
    const first = seen.get('everything') as Observation;
    const target = targets[0] as CheckTarget;
    const again = await observeOk(target);
    expect(rugPullCheck(context(target, again, { pin: nextPin(null, first, new Date()) }))).toEqual(
      [],
    );
  });
});
