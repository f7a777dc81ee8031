import secureJson from 'secure-json-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleParts, PART_BYTES, parseToParts } from '../../src/receivers/json-parts.ts';
import { LARGE_JSON_BYTES } from '../../src/receivers/json-pool.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';

/**
 * JSON bodies over LARGE_JSON_BYTES are parsed on a worker thread and come back in parts
 * (src/receivers/json-pool.ts, json-parts.ts). Nothing may change for the client: the same
 * stored spans, the same 400 for a body that is not JSON or is poisoned, the same 422s.
 */

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const PAD = 'x'.repeat(1200);

/** `count` spans of session `session`, about 1.5 KB each, with ids from `tag`. */
function batch(session: string, tag: string, count: number): Record<string, unknown>[] {
  const start = Date.now() - 60_000;
  return Array.from({ length: count }, (_, i) =>
    nativeSpan({
      span_id: `${tag}-${i}`,
      trace_id: `trace-${tag}`,
      session_id: session,
      started_at: new Date(start + i).toISOString(),
      ended_at: new Date(start + i + 5).toISOString(),
      input_args: { i, path: `/tmp/${i}`, nested: [i, { deep: [true, null, -1.5e-7] }] },
      output_result: JSON.stringify(`${i}:${PAD}`),
    }),
  );
}

/** JSON text of `spans` with "@@name@@" replaced by raw JSON that JSON.stringify cannot write. */
function raw(spans: unknown[], values: Record<string, string>): string {
  let text = JSON.stringify(spans);
  for (const [name, value] of Object.entries(values))
    text = text.replaceAll(`"@@${name}@@"`, value);
  return text;
}

/** Both sides of a comparison: the same flaw in a small body and in one over LARGE_JSON_BYTES. */
function smallAndLarge(flawed: Record<string, unknown>[], values: Record<string, string> = {}) {
  const small = raw(flawed, values);
  const large = raw([...flawed, ...batch('filler', 'filler', 900)], values);
  expect(Buffer.byteLength(small)).toBeLessThan(LARGE_JSON_BYTES);
  expect(Buffer.byteLength(large)).toBeGreaterThan(LARGE_JSON_BYTES);
  return { small, large };
}

describe('a large JSON body in parts', () => {
  const parseAll = async (text: string) => {
    const parsed = parseToParts(text);
    if (parsed.kind !== 'parts') throw new Error(parsed.kind);
    return { parsed, value: await assembleParts(parsed, () => undefined) };
  };

  it('gives back the value Fastify parses, for a native batch and OTLP/JSON', async () => {
    const native = JSON.stringify(batch('s', 'n', 900));
    const { parsed, value } = await parseAll(native);
    expect(value).toEqual(secureJson.parse(native));
    expect(parsed.parts.length).toBeGreaterThan(5);
    for (const part of parsed.parts) expect(part.json.length).toBeLessThan(PART_BYTES + 2_000);

    const spans = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        traceId: 'ab'.repeat(16),
        spanId: `${i}`,
        name: PAD,
      }));
    const otlp = JSON.stringify({
      resourceSpans: [
        { resource: { attributes: [] }, scopeSpans: [{ spans: spans(300) }, { spans: [] }] },
        { scope_spans: [{ spans: spans(500), scope: { name: 'x' } }] },
      ],
    });
    expect(await parseAll(otlp).then((r) => r.value)).toEqual(secureJson.parse(otlp));
    const weird = '{"a":[[1,[2,[3]]],{"b":[]}],"c":"\\ud800","d":{"1":2,"x":[null,"é"]}}';
    expect(await parseAll(weird).then((r) => r.value)).toEqual(JSON.parse(weird));
  });

  it('refuses poisoned bodies as Fastify does, and leaves what text cannot carry to the event loop', () => {
    expect(parseToParts('[{"a":1,"__proto__":{"x":1}}]')).toEqual({ kind: 'invalid' });
    expect(parseToParts('[{"constructor":{"prototype":{"x":1}}}]')).toEqual({ kind: 'invalid' });
    expect(parseToParts('[{"a":1}')).toEqual({ kind: 'invalid' });
    for (const text of ['[{"a":1e309}]', '[{"a":-0}]', `[${deep(5_000)}]`])
      expect(parseToParts(text)).toEqual({ kind: 'fallback', text });
  });
});

describe('large native and OTLP/JSON bodies over HTTP', () => {
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' });
    base = server.httpUrl;
  });
  afterAll(async () => server?.dispose());

  const post = (body: unknown, path = '/api/traces/spans') => postJson(`${base}${path}`, body);
  const stored = async (session: string) =>
    ((await getJson(`${base}/api/traces/spans?session_id=${session}&limit=1000`)).json as any[])
      .map((s) => ({ ...s, span_id: s.span_id.split('-')[1], session_id: undefined }))
      .sort((a, b) => Number(a.span_id) - Number(b.span_id));

  it('stores the spans of a body parsed on a thread exactly as those of small bodies', async () => {
    const large = batch('large', 'L', 900);
    expect(Buffer.byteLength(JSON.stringify(large))).toBeGreaterThan(LARGE_JSON_BYTES);
    const res = await post(large);
    expect(res.status, res.text).toBe(202);
    expect(res.json).toEqual({ accepted: 900, duplicates: 0 });

    const small = large.map((s, i) => ({ ...s, span_id: `S-${i}`, session_id: 'small' }));
    for (let i = 0; i < small.length; i += 150)
      expect((await post(small.slice(i, i + 150))).status).toBe(202);
    const fromLarge = await stored('large');
    expect(fromLarge).toHaveLength(900);
    expect(fromLarge).toEqual(await stored('small'));
  });

  it('answers a poisoned, broken or too deep large body as it answers a small one', async () => {
    const span = (over: Record<string, unknown>) => nativeSpan({ session_id: 'bad', ...over });
    const cases = [
      // __proto__ and constructor.prototype: Fastify's 400.
      smallAndLarge([span({ input_args: '@@proto@@' })], { proto: '{"__proto__":{"x":1}}' }),
      smallAndLarge([span({ input_args: '@@ctor@@' })], {
        ctor: '{"constructor":{"prototype":{"x":1}}}',
      }),
      // Nested deeper than span payloads may (422), in parts and, past what the thread writes
      // back as text, on the event loop.
      smallAndLarge([span({ input_args: '@@deep@@' })], { deep: deep(100) }),
      smallAndLarge([span({ input_args: '@@deep@@' })], { deep: deep(10_000) }),
      // Numbers JSON cannot write back, and ordinary validation problems (422).
      smallAndLarge([span({ latency_ms: '@@inf@@', input_tokens: -1 }), span({ status: 'meh' })], {
        inf: '1e309',
      }),
    ];
    for (const { small, large } of cases) {
      const [a, b] = [await post(small), await post(large)];
      expect(a.status).toBeGreaterThanOrEqual(400);
      expect({ status: b.status, json: b.json }).toEqual({ status: a.status, json: a.json });
    }
    // Not JSON at all: the same 400.
    const { small, large } = smallAndLarge([span({})]);
    const [a, b] = [await post(small.slice(0, -1)), await post(large.slice(0, -1))];
    expect(a.status).toBe(400);
    expect({ status: b.status, json: b.json }).toEqual({ status: a.status, json: a.json });
    expect(await stored('bad')).toEqual([]);
  });

  it('takes a large OTLP/JSON export and answers a broken one as a small one', async () => {
    const spans = Array.from({ length: 900 }, (_, i) => ({
      traceId: 'ab'.repeat(16),
      spanId: (i + 1).toString(16).padStart(16, '0'),
      name: 'execute_tool',
      startTimeUnixNano: String((Date.now() - 1000) * 1e6),
      endTimeUnixNano: String(Date.now() * 1e6),
      attributes: [
        { key: 'gen_ai.conversation.id', value: { stringValue: 'otlp-large' } },
        { key: 'gen_ai.tool.name', value: { stringValue: `tool-${i}` } },
        { key: 'pad', value: { stringValue: PAD } },
      ],
    }));
    const body = (list: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans: list }] }] });
    expect(Buffer.byteLength(JSON.stringify(body(spans)))).toBeGreaterThan(LARGE_JSON_BYTES);
    const res = await post(body(spans), '/v1/traces');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({});
    expect(await stored('otlp-large')).toHaveLength(900);

    const broken = (list: unknown[]) => body([...list, { spanId: 5 }]);
    const [a, b] = [
      await post(broken(spans.slice(0, 2)), '/v1/traces'),
      await post(broken(spans), '/v1/traces'),
    ];
    expect(a.status).toBe(400);
    expect(b.json.detail.replace('[900]', '[2]')).toBe(a.json.detail);
  });
});
