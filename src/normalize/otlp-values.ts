import type { AttrValue, Attrs } from '../model/otlp.ts';

/** Converters from OTLP attribute values to span fields; undefined = not usable, try the next name. */
export function first<T>(
  a: Attrs,
  keys: readonly string[],
  convert: (v: AttrValue) => T | undefined,
): T | null {
  for (const key of keys) {
    const v = a[key];
    if (v === undefined || v === null) continue;
    const out = convert(v);
    if (out !== undefined) return out;
  }
  return null;
}

export function text(v: AttrValue | undefined): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

export function serialize(v: AttrValue): string | undefined {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function count(v: AttrValue): number | undefined {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;
}

/** Tool arguments arrive as a JSON string (semconv) or a structured value; always stored as an object. */
export function toArgs(v: AttrValue): Record<string, unknown> | undefined {
  let value: unknown = v;
  if (typeof v === 'string') {
    try {
      value = JSON.parse(v);
    } catch {
      return { value: v };
    }
  }
  if (value && typeof value === 'object' && !Array.isArray(value))
    return value as Record<string, unknown>;
  return { value };
}

/**
 * A message list flattened into one attribute per field (`gen_ai.prompt.0.role`,
 * `gen_ai.prompt.0.content`, `llm.input_messages.1.message.content`) put back together as a JSON
 * array of objects in index order; null when the span has none of them.
 */
export function flattenedMessages(
  a: Attrs,
  specs: readonly { prefix: string; strip: string }[],
): string | null {
  // Most spans have none: one pass over the keys says so, instead of one per prefix.
  if (!hasKeyStartingWith(a, specs)) return null;
  for (const { prefix, strip } of specs) {
    const byIndex = new Map<number, Record<string, AttrValue>>();
    for (const key in a) {
      if (!key.startsWith(prefix)) continue;
      const m = /^(\d{1,6})\.(.+)$/.exec(key.slice(prefix.length));
      if (!m) continue;
      const index = Number(m[1]);
      const field = (m[2] as string).startsWith(strip)
        ? (m[2] as string).slice(strip.length)
        : (m[2] as string);
      let message = byIndex.get(index);
      // No prototype: a field named __proto__ is then just a field.
      if (!message)
        byIndex.set(index, (message = Object.create(null) as Record<string, AttrValue>));
      message[field] = a[key] as AttrValue;
    }
    if (byIndex.size > 0)
      return JSON.stringify(
        [...byIndex.entries()].sort((x, y) => x[0] - y[0]).map(([, msg]) => msg),
      );
  }
  return null;
}

function hasKeyStartingWith(a: Attrs, specs: readonly { prefix: string }[]): boolean {
  for (const key in a) for (const { prefix } of specs) if (key.startsWith(prefix)) return true;
  return false;
}
