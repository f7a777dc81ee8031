import { describe, expect, it } from 'vitest';
import { blastSeverity, classifyCheck, readStatus } from '../../src/health/classify.ts';
import type { HealthResult } from '../../src/model/health.ts';

const result = (checkedAt: Date | null, status: HealthResult['status'] = 'up'): HealthResult => ({
  id: 'r',
  projectId: 'default',
  serverName: 's',
  status,
  latencyMs: 1,
  toolsCount: 1,
  schemaHash: 'h',
  error: null,
  checkedAt,
  schemaDrift: false,
  transport: 'stdio',
  serverInfo: null,
  protocolVersion: null,
});

describe('status rules (spec §3.1)', () => {
  it('classifies a finished check', () => {
    const ok = { reachable: true, invalidSchema: false, probeFailed: false, drift: false };
    expect(classifyCheck(ok)).toBe('up');
    expect(classifyCheck({ ...ok, drift: true })).toBe('degraded');
    expect(classifyCheck({ ...ok, probeFailed: true })).toBe('degraded');
    expect(classifyCheck({ ...ok, invalidSchema: true })).toBe('degraded');
    expect(classifyCheck({ ...ok, reachable: false, drift: true })).toBe('down');
  });

  it('derives stale once interval + timeout passed without a check, and unknown without one', () => {
    const now = new Date('2026-01-01T00:01:05Z');
    expect(readStatus(result(new Date('2026-01-01T00:00:00Z'), 'down'), now, 60, 5)).toBe('down');
    expect(
      readStatus(
        result(new Date('2026-01-01T00:00:00Z')),
        new Date('2026-01-01T00:01:05.001Z'),
        60,
        5,
      ),
    ).toBe('stale');
    expect(readStatus(result(null), now, 60, 5)).toBe('unknown');
  });
});

describe('blast radius severity (spec §2.7), at each boundary', () => {
  it.each([
    [6, 0, 'CRITICAL'],
    [5, 0, 'HIGH'],
    [1, 101, 'CRITICAL'],
    [1, 100, 'HIGH'],
    [1, 21, 'HIGH'],
    [1, 20, 'MEDIUM'],
    [3, 0, 'HIGH'],
    [2, 0, 'MEDIUM'],
    [0, 0, 'LOW'],
  ] as const)('%i agents, %i sessions -> %s', (agents, sessions, severity) => {
    expect(blastSeverity(agents, sessions)).toBe(severity);
  });
});
