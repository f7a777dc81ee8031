/**
 * Look-alike tool names: mixed scripts and near spellings (docs/security.md#rules, SAFE-T1004).
 */

/** Cyrillic and Greek letters drawn like Latin ones: enough to unmask the usual homoglyph names. */
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  α: 'a',
  ο: 'o',
  ρ: 'p',
  υ: 'u',
  ν: 'v',
  ι: 'i',
  κ: 'k',
  τ: 't',
  χ: 'x',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
};

/** The name with look-alike letters replaced by the Latin ones they imitate, lower-cased. */
export function skeleton(name: string): string {
  let out = '';
  for (const ch of name) out += HOMOGLYPHS[ch] ?? ch;
  return out.toLowerCase();
}

const LATIN = /\p{Script=Latin}/u;
const OTHER_SCRIPTS: readonly [string, RegExp][] = [
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
];

/** A name that mixes Latin letters with letters of another script: nobody types that by accident. */
export function mixedScript(name: string): string | null {
  if (!LATIN.test(name)) return null;
  return OTHER_SCRIPTS.find(([, re]) => re.test(name))?.[0] ?? null;
}

/** Edit distance of a and b when it is at most `max`, otherwise max + 1 (stops early). */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(
        (prev[j] ?? 0) + 1,
        (cur[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length] ?? max + 1;
}
