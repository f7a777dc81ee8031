import { describe, expect, it } from 'vitest';
import { fromPg, fromPgText, pgText, toPg } from '../../src/store/pg-text.ts';
import { mulberry32 } from '../helpers/seeded-random.ts';

/** What PostgreSQL refuses: NUL anywhere, and (in jsonb) a surrogate without its pair. */
const REFUSED = /\u0000|[\uD800-\uDFFF]/u;

/** Strings from the characters that matter here: NUL, both surrogate halves, the marker, hex digits, plain text. */
function randomString(next: () => number): string {
  const parts = [
    '\u0000',
    '\uD800',
    '\uDC00',
    '\u{10FFFD}',
    '\u{1F600}',
    '0',
    'a',
    'f',
    '00',
    '0000',
    ' ',
    'é',
  ];
  let s = '';
  const n = Math.floor(next() * 12);
  for (let i = 0; i < n; i++) s += parts[Math.floor(next() * parts.length)];
  return s;
}

describe('pg-text: server text PostgreSQL would refuse', () => {
  it('is stored without a refused character and read back exactly, for 20,000 seeded strings', () => {
    const next = mulberry32(25);
    for (let i = 0; i < 20_000; i++) {
      const s = randomString(next);
      const stored = pgText(s);
      expect(REFUSED.test(stored), JSON.stringify(s)).toBe(false);
      expect(fromPgText(stored)).toBe(s);
    }
  });

  it('leaves ordinary text as it is, and escapes keys and values at any depth of a JSON value', () => {
    const plain = { name: 'read_file', inputSchema: { properties: { path: { type: 'string' } } } };
    expect(toPg(plain)).toBe(plain);
    expect(pgText('Reads a file 😀')).toBe('Reads a file 😀');
    const hostile = {
      name: 'x',
      list: ['a\u0000b', 1, null],
      nested: { 'key\u0000': { deeper: '\uD800' } },
    };
    const stored = toPg(hostile);
    expect(JSON.stringify(stored)).not.toMatch(/\\u0000|\\ud800/);
    expect(Object.keys(stored.nested)).toHaveLength(1);
    expect(fromPg(stored)).toEqual(hostile);
  });
});
