import { describe, expect, it } from 'vitest';
import {
  prepareJson,
  shouldPrepareInWorker,
  utf8Length,
  visibleEscapes,
} from '../../ui/src/lib/json-view.ts';

describe('prepareJson', () => {
  it('pretty-prints parsed values and JSON strings, and shows other text as is', () => {
    expect(prepareJson({ a: [1] })).toEqual({
      kind: 'json',
      text: '{\n  "a": [\n    1\n  ]\n}',
      bytes: 9,
      truncated: false,
    });
    expect(prepareJson('{"b":true}').text).toBe('{\n  "b": true\n}');
    expect(prepareJson('not json')).toMatchObject({ kind: 'text', text: 'not json' });
    expect(prepareJson(null).text).toBe('null');
  });

  it('above the limit gives a byte-bounded preview and asks for the download', () => {
    const big = JSON.stringify({ data: 'é'.repeat(2000) });
    const view = prepareJson(big, { limitBytes: 1000, previewBytes: 101 });
    expect(view).toMatchObject({ kind: 'preview', truncated: true, bytes: utf8Length(big) });
    expect(utf8Length(view.text)).toBeLessThanOrEqual(101);
    expect(big.startsWith(view.text)).toBe(true);
    const emoji = prepareJson('😀'.repeat(100), { limitBytes: 10, previewBytes: 6 });
    expect(emoji.text).toBe('😀'); // never half a surrogate pair
  });

  it('counts UTF-8 bytes and sends large strings to the worker', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(shouldPrepareInWorker('x'.repeat(300_000))).toBe(true);
    expect(shouldPrepareInWorker({ big: true })).toBe(false);
  });
});

describe('visibleEscapes', () => {
  it('makes control, bidi and invisible characters visible and leaves text alone', () => {
    expect(visibleEscapes('rm -rf \u202Etxt.exe')).toBe('rm -rf \\u{202E}txt.exe');
    expect(visibleEscapes('\u001b[31mred\u0007')).toBe('\\u{001B}[31mred\\u{0007}');
    expect(visibleEscapes('a\u200Bb\u2066c\uFEFF\u0085')).toBe(
      'a\\u{200B}b\\u{2066}c\\u{FEFF}\\u{0085}',
    );
    expect(visibleEscapes('line\n\tnext — naïve 日本 😀')).toBe('line\n\tnext — naïve 日本 😀');
  });
});
