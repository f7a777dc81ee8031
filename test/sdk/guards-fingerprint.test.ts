import { describe, expect, it } from 'vitest';
import { callFingerprint } from '../../sdk/src/guards/index.ts';

// docs/sdk.md#guards, float normalisation: floats rounded to 6 decimals recursively; other types unchanged.
const fp = callFingerprint;

describe('call fingerprints', () => {
  it('floats equal to 6 decimals are the same call, at the top level and nested in arrays and objects', () => {
    expect(fp('t', 1.0000001)).toBe(fp('t', 1.0000002));
    expect(fp('t', { a: [1.0000001, { b: 0.1 + 0.2 }] })).toBe(
      fp('t', { a: [1.0000002, { b: 0.3 }] }),
    );
    expect(fp('t', { x: -3.14159265 })).toBe(fp('t', { x: -3.1415927 }));
    expect(fp('t', { x: 1.000001 })).not.toBe(fp('t', { x: 1.000002 }));
  });

  it('integers, strings and booleans are untouched', () => {
    expect(fp('t', { n: 1234567890123 })).not.toBe(fp('t', { n: 1234567890124 }));
    expect(fp('t', { s: '1.0000001' })).not.toBe(fp('t', { s: '1.0000002' }));
    expect(fp('t', { s: '1' })).not.toBe(fp('t', { s: 1 }));
    expect(fp('t', { b: true })).not.toBe(fp('t', { b: 'true' }));
    expect(fp('t', [null])).not.toBe(fp('t', ['null']));
  });

  it('object key order is irrelevant, array order is not', () => {
    expect(fp('t', { a: 1, b: { c: 2, d: 3 } })).toBe(fp('t', { b: { d: 3, c: 2 }, a: 1 }));
    expect(fp('t', [1, 2])).not.toBe(fp('t', [2, 1]));
  });

  it('the tool name is part of the identity', () => {
    expect(fp('search', { q: 'x' })).not.toBe(fp('fetch', { q: 'x' }));
  });

  it('cycles, BigInt, throwing getters and deep nesting do not throw and stay stable', () => {
    const a: Record<string, unknown> = { k: 1 };
    a.self = a;
    expect(fp('t', a)).toBe(fp('t', a));
    expect(fp('t', { n: 10n })).not.toBe(fp('t', { n: 11n }));
    const hostile = {
      get boom(): never {
        throw new Error('no');
      },
    };
    expect(fp('t', hostile)).toBe(fp('t', hostile));
    let deep: unknown = 0;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => fp('t', deep)).not.toThrow();
  });

  it('long arguments are hashed to a short stable string', () => {
    const big = { text: 'x'.repeat(10_000) };
    expect(fp('t', big).length).toBeLessThan(64);
    expect(fp('t', big)).toBe(fp('t', { text: 'x'.repeat(10_000) }));
    expect(fp('t', big)).not.toBe(fp('t', { text: `${'x'.repeat(9_999)}y` }));
  });
});
