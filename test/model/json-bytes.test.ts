import { describe, expect, it } from 'vitest';
import { JsonBytes, JsonScratch } from '../../src/model/json-bytes.ts';

/** JsonBytes writes each value as JSON.stringify does (the session tree's REST bytes rest on it). */
const written = (v: unknown) => {
  const w = new JsonBytes();
  w.value(v);
  return w.bytes().toString('utf8');
};

describe('JsonBytes', () => {
  it('writes numbers as JSON.stringify', () => {
    for (const n of [
      0,
      -0,
      1,
      9,
      10,
      99,
      100,
      12_345,
      2 ** 31,
      4_294_967_296,
      999_999_999_999_999,
      1e15,
      1e21,
      0.1,
      0.30000000000000004,
      1e-7,
      -5,
      1.5,
      Number.NaN,
      Infinity,
      -Infinity,
    ])
      expect(written(n)).toBe(JSON.stringify(n));
  });

  it('writes strings as JSON.stringify, short and long', () => {
    const samples = [
      '',
      'plain',
      'quote " backslash \\ tab \t newline \n nul \u0000 unit \u001f del \u007f',
      'é Zürich — 😀',
      'lone \ud800 surrogate',
      'lone \udc00 low',
    ];
    for (const s of samples) {
      expect(written(s)).toBe(JSON.stringify(s));
      expect(written(s.repeat(30))).toBe(JSON.stringify(s.repeat(30)));
      expect(written(`${'x'.repeat(70)}${s}`)).toBe(JSON.stringify(`${'x'.repeat(70)}${s}`));
    }
  });

  it('writes null, booleans and objects as JSON.stringify', () => {
    for (const v of [null, true, false, { b: 1, 2: 'a', 1: [null, 'x"y'] }, [1, 'é'], {}])
      expect(written(v)).toBe(JSON.stringify(v));
  });

  it('grows past its scratch buffer', () => {
    const big = 'ab'.repeat(400_000);
    expect(written(big)).toBe(JSON.stringify(big));
  });

  it("shares its owner's scratch buffer with the next writer, each one's bytes its own", () => {
    const scratch = new JsonScratch();
    const write = (v: unknown) => {
      const w = new JsonBytes(scratch);
      w.value(v);
      return w.bytes();
    };
    const first = write('first, the longer one');
    const second = write('2nd');
    // A grown buffer comes back too (up to its limit), and is reused.
    const big = write('x'.repeat(600_000));
    const third = write({ third: true });
    expect(first.toString('utf8')).toBe('"first, the longer one"');
    expect(second.toString('utf8')).toBe('"2nd"');
    expect(big.length).toBe(600_002);
    expect(third.toString('utf8')).toBe('{"third":true}');
  });
});
