import { randomBytes } from 'node:crypto';
import { SpanKind, SpanStatusCode, context, trace, type Attributes } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { Writer } from 'protobufjs/minimal.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { SpyglassError } from '../../src/errors.ts';
import { decodeOtlpJson } from '../../src/receivers/otlp-json.ts';
import { decodeOtlpProtobuf, encodeExportResponse } from '../../src/receivers/otlp-protobuf.ts';
import type { DecodedExport, DecodedSpan } from '../../src/model/otlp.ts';

const START: [number, number] = [1_700_000_000, 123_456_789]; // 1700000000123.456789 ms
const END: [number, number] = [1_700_000_002, 5]; // 1700000002000.000005 ms

/** The SDK's attribute API only takes primitives and arrays; kvlist and bytes are legal OTLP though. */
const EXTRA_ATTRS = {
  blob: new Uint8Array([0, 1, 2, 250]),
  obj: { a: 'x', nested: { n: 1, list: [true, 2.5] } },
};

async function recordSpans(): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'agent-x',
      'deployment.count': 3,
      'feature.on': true,
    }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('spyglass-test', '0.0.1');
  const root = tracer.startSpan('invoke_agent', { startTime: START, kind: SpanKind.SERVER });
  const child = tracer.startSpan(
    'execute_tool search',
    {
      startTime: START,
      kind: SpanKind.CLIENT,
      attributes: {
        str: 'héllo',
        int: 42,
        neg: -7,
        big: 2 ** 40,
        dbl: 3.25,
        bool: false,
        strs: ['a', 'b'],
        ints: [1, 2, 3],
        bools: [true, false],
        sparse: ['x', null, 'z'],
      },
    },
    trace.setSpan(context.active(), root),
  );
  child.addEvent('retry', { attempt: 2 }, START); // events and links are skipped by the decoders
  child.addLink({ context: root.spanContext(), attributes: { why: 'because' } });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'tool failed' });
  child.end(END);
  root.setStatus({ code: SpanStatusCode.OK });
  root.end(END);
  await provider.forceFlush();
  const [first, second] = exporter.getFinishedSpans();
  await provider.shutdown();
  return [withExtraAttributes(first!), second!];
}

function withExtraAttributes(span: ReadableSpan): ReadableSpan {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    links: span.links,
    events: span.events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    attributes: { ...span.attributes, ...(EXTRA_ATTRS as unknown as Attributes) },
  };
}

function expectBadRequest(fn: () => unknown, message?: string | RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(SpyglassError);
  expect((caught as SpyglassError).code).toBe('bad_request');
  if (message !== undefined) expect((caught as SpyglassError).message).toMatch(message);
}

describe('OTLP decoders on payloads from the OpenTelemetry serializers', () => {
  let spans: ReadableSpan[];
  let protobuf: Uint8Array;
  let fromProtobuf: DecodedExport;
  let fromJson: DecodedExport;

  beforeAll(async () => {
    spans = await recordSpans();
    protobuf = ProtobufTraceSerializer.serializeRequest(spans)!;
    fromProtobuf = decodeOtlpProtobuf(protobuf);
    fromJson = decodeOtlpJson(
      JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString('utf8')),
    );
  });

  it('gives the same DecodedExport from OTLP/JSON and protobuf', () => {
    expect(fromJson).toEqual(fromProtobuf);
  });

  it('decodes resource, ids, times, status and every AnyValue kind', () => {
    const [child, root] = spans as [ReadableSpan, ReadableSpan];
    expect(fromProtobuf.resourceSpans).toHaveLength(1);
    const rs = fromProtobuf.resourceSpans[0]!;
    expect(rs.resource).toMatchObject({
      'service.name': 'agent-x',
      'deployment.count': 3,
      'feature.on': true,
    });
    const [decodedChild, decodedRoot] = rs.spans as [DecodedSpan, DecodedSpan];
    expect(decodedRoot).toEqual({
      traceId: root.spanContext().traceId,
      spanId: root.spanContext().spanId,
      parentSpanId: '',
      name: 'invoke_agent',
      startTimeMs: 1_700_000_000_123 + 0.456789,
      endTimeMs: 1_700_000_002_000 + 0.000005,
      attributes: {},
      statusCode: 1,
      statusMessage: '',
    });
    expect(decodedChild).toMatchObject({
      traceId: root.spanContext().traceId,
      spanId: child.spanContext().spanId,
      parentSpanId: root.spanContext().spanId,
      name: 'execute_tool search',
      statusCode: 2,
      statusMessage: 'tool failed',
    });
    expect(decodedChild.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(decodedChild.startTimeMs - 1_700_000_000_123.456789).toBeCloseTo(0, 3);
    expect(decodedChild.attributes).toEqual({
      str: 'héllo',
      int: 42,
      neg: -7,
      big: 2 ** 40,
      dbl: 3.25,
      bool: false,
      strs: ['a', 'b'],
      ints: [1, 2, 3],
      bools: [true, false],
      sparse: ['x', null, 'z'],
      blob: 'AAEC+g==',
      obj: { a: 'x', nested: { n: 1, list: [true, 2.5] } },
    });
  });

  it('rejects every truncation of a valid protobuf payload', () => {
    for (let cut = 1; cut < protobuf.length; cut++) {
      expectBadRequest(
        () => decodeOtlpProtobuf(protobuf.subarray(0, cut)),
        /^invalid OTLP protobuf: /,
      );
    }
  });
});

describe('decodeOtlpProtobuf on hand-made bytes', () => {
  it('decodes an empty request and skips unknown fields at every level', () => {
    expect(decodeOtlpProtobuf(new Uint8Array(0))).toEqual({ resourceSpans: [] });
    const span = Writer.create()
      .uint32(18)
      .bytes(Buffer.from('00112233445566ff', 'hex')) // span_id
      .uint32((50 << 3) | 2)
      .string('from a newer OTLP') // unknown string
      .uint32((51 << 3) | 5)
      .fixed32(7) // unknown fixed32
      .uint32((52 << 3) | 3)
      .uint32((1 << 3) | 0)
      .uint32(1)
      .uint32((52 << 3) | 4) // unknown group
      .uint32(57)
      .fixed64(1_000_000_000)
      .uint32(65)
      .fixed64(2_500_000_001)
      .finish();
    const req = Writer.create()
      .uint32((99 << 3) | 0)
      .uint32(12345) // unknown varint before the data
      .uint32(10)
      .fork()
      .uint32(18)
      .fork()
      .uint32(18)
      .bytes(span)
      .ldelim()
      .ldelim()
      .finish();
    expect(decodeOtlpProtobuf(req)).toEqual({
      resourceSpans: [
        {
          resource: {},
          spans: [
            {
              traceId: '',
              spanId: '00112233445566ff',
              parentSpanId: '',
              name: '',
              startTimeMs: 1000,
              endTimeMs: 2500.000001,
              attributes: {},
              statusCode: 0,
              statusMessage: '',
            },
          ],
        },
      ],
    });
  });

  it('decodes attribute keys the same however often they repeat: ASCII, non-ASCII, long, near-identical', () => {
    const kv = (key: string, value: string) =>
      Writer.create().uint32(10).string(key).uint32(18).fork().uint32(10).string(value).ldelim();
    const keys = [
      'gen_ai.usage.input_tokens',
      'gen_ai.usage.input_tokenz', // same length, one byte apart
      'clé.名前',
      'k'.repeat(100),
      '__proto__',
      '',
    ];
    const spanBytes = (i: number) => {
      const w = Writer.create()
        .uint32(18)
        .bytes(Buffer.from(`00112233445566${i}0`, 'hex'));
      for (const [n, key] of keys.entries())
        w.uint32(74).bytes(kv(key, `${key}=${i}.${n}`).finish());
      return w.finish();
    };
    const scope = Writer.create();
    for (let i = 0; i < 10; i++) scope.uint32(18).bytes(spanBytes(i));
    const req = Writer.create()
      .uint32(10)
      .fork()
      .uint32(18)
      .bytes(scope.finish())
      .ldelim()
      .finish();
    // Twice: the second decode reads every key from the cache of the first.
    for (let round = 0; round < 2; round++) {
      const spans = decodeOtlpProtobuf(req).resourceSpans[0]!.spans;
      expect(spans).toHaveLength(10);
      for (const [i, span] of spans.entries()) {
        expect(Object.keys(span.attributes)).toEqual(keys);
        for (const [n, key] of keys.entries())
          expect(Object.getOwnPropertyDescriptor(span.attributes, key)?.value).toBe(
            `${key}=${i}.${n}`,
          );
      }
    }
  });

  it('rejects garbage, overlong lengths, wrong wire types, bad ids and runaway nesting', () => {
    expectBadRequest(
      () => decodeOtlpProtobuf(Buffer.from('this is not protobuf at all')),
      /^invalid OTLP protobuf/,
    );
    expectBadRequest(() => decodeOtlpProtobuf(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])));
    expectBadRequest(() => decodeOtlpProtobuf(Buffer.from([0x08, 0x01]))); // resource_spans as a varint
    const noSpanId = Writer.create()
      .uint32(10)
      .fork()
      .uint32(18)
      .fork()
      .uint32(18)
      .fork()
      .uint32(42)
      .string('n')
      .ldelim()
      .ldelim()
      .ldelim()
      .finish();
    expectBadRequest(
      () => decodeOtlpProtobuf(noSpanId),
      'resourceSpans[0].scopeSpans[0].spans[0]: spanId missing',
    );
    let value = Writer.create().uint32(10).string('deep').finish();
    for (let i = 0; i < 200; i++)
      value = Writer.create().uint32(42).fork().uint32(10).bytes(value).ldelim().finish();
    const deep = Writer.create()
      .uint32(10)
      .fork()
      .uint32(10)
      .fork()
      .uint32(10)
      .fork()
      .uint32(10)
      .string('k')
      .uint32(18)
      .bytes(value)
      .ldelim()
      .ldelim()
      .ldelim()
      .finish();
    expectBadRequest(() => decodeOtlpProtobuf(deep), /nested deeper/);
  });

  it('never crashes on random bytes: a decoded export or a bad_request', () => {
    for (let i = 0; i < 500; i++) {
      const bytes = randomBytes(1 + (i % 300));
      try {
        expect(decodeOtlpProtobuf(bytes).resourceSpans).toBeInstanceOf(Array);
      } catch (err) {
        expect(err).toBeInstanceOf(SpyglassError);
        expect((err as SpyglassError).code).toBe('bad_request');
      }
    }
  });

  it('encodes partial_success only when something was rejected', () => {
    expect(encodeExportResponse({ rejectedSpans: 0, errorMessage: '' })).toHaveLength(0);
    const expected = Writer.create()
      .uint32(10)
      .fork()
      .uint32(8)
      .int64(3)
      .uint32(18)
      .string('too old')
      .ldelim()
      .finish();
    expect(
      Buffer.from(encodeExportResponse({ rejectedSpans: 3, errorMessage: 'too old' })),
    ).toEqual(Buffer.from(expected));
  });
});

describe('decodeOtlpJson on hand-written requests', () => {
  it('accepts snake_case names, base64 ids, numeric times and enum status names', () => {
    const decoded = decodeOtlpJson({
      resource_spans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { string_value: 'svc' } }] },
          scope_spans: [
            {
              spans: [
                {
                  trace_id: Buffer.from('0123456789abcdef0123456789abcdef', 'hex').toString(
                    'base64',
                  ),
                  span_id: 'ABCDEF0123456789',
                  parent_span_id: '',
                  name: 'n',
                  start_time_unix_nano: 1_500_000,
                  end_time_unix_nano: '1700000000000000001',
                  attributes: [
                    { key: 'i', value: { int_value: '-12' } },
                    { key: 'd', value: { doubleValue: 'NaN' } },
                    { key: '__proto__', value: { boolValue: true } },
                    { key: 'empty', value: {} },
                    { key: 'missing' },
                  ],
                  status: { code: 'STATUS_CODE_ERROR', message: 'bad' },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(decoded.resourceSpans[0]!.resource).toEqual({ 'service.name': 'svc' });
    const span = decoded.resourceSpans[0]!.spans[0]!;
    expect(span).toMatchObject({
      traceId: '0123456789abcdef0123456789abcdef',
      spanId: 'abcdef0123456789',
      parentSpanId: '',
      name: 'n',
      startTimeMs: 1.5,
      endTimeMs: 1_700_000_000_000 + 0.000001,
      statusCode: 2,
      statusMessage: 'bad',
    });
    expect(Object.getPrototypeOf(span.attributes)).toBe(Object.prototype);
    expect(Object.keys(span.attributes)).toEqual(['i', 'd', '__proto__', 'empty', 'missing']);
    expect(span.attributes).toMatchObject({ i: -12, d: NaN, empty: null, missing: null });
    expect(Object.getOwnPropertyDescriptor(span.attributes, '__proto__')?.value).toBe(true);
  });

  it('takes an empty request and rejects wrong structure with the place named', () => {
    expect(decodeOtlpJson({})).toEqual({ resourceSpans: [] });
    expectBadRequest(() => decodeOtlpJson(null), 'request: expected an object');
    expectBadRequest(() => decodeOtlpJson([]), 'request: expected an object');
    expectBadRequest(
      () => decodeOtlpJson({ resourceSpans: {} }),
      'resourceSpans: expected an array',
    );
    expectBadRequest(
      () => decodeOtlpJson({ resourceSpans: [{ scopeSpans: [{ spans: 'x' }] }] }),
      'resourceSpans[0].scopeSpans[0].spans: expected an array',
    );
    const span = (extra: object) => ({
      resourceSpans: [{ scopeSpans: [{}, { spans: [{ spanId: '0011223344556677' }, extra] }] }],
    });
    const where = 'resourceSpans[0].scopeSpans[1].spans[1]';
    expectBadRequest(() => decodeOtlpJson(span({ name: 'no id' })), `${where}: spanId missing`);
    expectBadRequest(() => decodeOtlpJson(span({ spanId: 'zz' })), `${where}.spanId`);
    expectBadRequest(
      () => decodeOtlpJson(span({ spanId: '0011223344556677', startTimeUnixNano: 'yesterday' })),
      `${where}.startTimeUnixNano`,
    );
    expectBadRequest(
      () => decodeOtlpJson(span({ spanId: '0011223344556677', endTimeUnixNano: -1 })),
      `${where}.endTimeUnixNano`,
    );
    expectBadRequest(
      () =>
        decodeOtlpJson(span({ spanId: '0011223344556677', status: { code: 'STATUS_CODE_MAYBE' } })),
      `${where}.status.code`,
    );
    expectBadRequest(
      () => decodeOtlpJson(span({ spanId: '0011223344556677', attributes: [{ key: 1 }] })),
      `${where}.attributes[0].key`,
    );
    expectBadRequest(
      () =>
        decodeOtlpJson(
          span({
            spanId: '0011223344556677',
            attributes: [{ key: 'k', value: { intValue: 'x' } }],
          }),
        ),
      `${where}.attributes[0].value.intValue`,
    );
  });
});
