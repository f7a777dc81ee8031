/**
 * OTLP/JSON ExportTraceServiceRequest → DecodedExport.
 *
 * Follows the protobuf JSON mapping (camelCase, ids as hex, int64 as string or number) but also
 * takes the snake_case names and base64 ids some clients send. Anything structurally wrong is a
 * badRequest naming where it is, so a client can find its bug from the message alone.
 */
import { badRequest } from '../errors.ts';
import type {
  AttrValue,
  Attrs,
  DecodedExport,
  DecodedResourceSpans,
  DecodedSpan,
} from '../model/otlp.ts';

type Obj = Record<string, unknown>;

/** Deeper AnyValue nesting is refused rather than risking the stack on hostile input. */
export const MAX_VALUE_DEPTH = 32;

/** Attributes nested deeper than MAX_VALUE_DEPTH: in a span's own attributes only that span is rejected. */
export class NestingTooDeep extends Error {
  constructor(where: string) {
    super(`${where}: values nested deeper than ${MAX_VALUE_DEPTH}`);
  }
}

const STATUS_NAMES: Record<string, number> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};
const HEX = /^[0-9a-fA-F]*$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const UINT = /^\d{1,20}$/;
const INT = /^-?\d{1,20}$/;

export function decodeOtlpJson(body: unknown): DecodedExport {
  try {
    return decodeRequest(body);
  } catch (err) {
    throw err instanceof NestingTooDeep ? badRequest(err.message) : err;
  }
}

function decodeRequest(body: unknown): DecodedExport {
  const root = expectObject(body, 'request');
  const list = field(root, 'resourceSpans', 'resource_spans');
  if (list === undefined || list === null) return { resourceSpans: [] };
  return {
    resourceSpans: expectArray(list, 'resourceSpans').map((rs, i) =>
      decodeResourceSpans(rs, `resourceSpans[${i}]`),
    ),
  };
}

function decodeResourceSpans(value: unknown, where: string): DecodedResourceSpans {
  const rs = expectObject(value, where);
  const resource = optionalObject(rs.resource, `${where}.resource`);
  const out: DecodedResourceSpans = {
    resource: resource
      ? decodeKeyValues(resource.attributes, `${where}.resource.attributes`, 0)
      : {},
    spans: [],
  };
  const scopes = field(rs, 'scopeSpans', 'scope_spans');
  if (scopes === undefined || scopes === null) return out;
  expectArray(scopes, `${where}.scopeSpans`).forEach((ss, i) => {
    const scopeWhere = `${where}.scopeSpans[${i}]`;
    const spans = expectObject(ss, scopeWhere).spans;
    if (spans === undefined || spans === null) return;
    expectArray(spans, `${scopeWhere}.spans`).forEach((s, j) =>
      out.spans.push(decodeSpan(s, `${scopeWhere}.spans[${j}]`)),
    );
  });
  return out;
}

function decodeSpan(value: unknown, where: string): DecodedSpan {
  const s = expectObject(value, where);
  const spanId = decodeId(field(s, 'spanId', 'span_id'), 8, `${where}.spanId`);
  if (spanId === '') throw badRequest(`${where}: spanId missing`);
  const status = optionalObject(s.status, `${where}.status`);
  let attributes: Attrs = {};
  let problem: string | undefined;
  try {
    attributes = decodeKeyValues(s.attributes, `${where}.attributes`, 0);
  } catch (err) {
    if (!(err instanceof NestingTooDeep)) throw err;
    problem = `attributes: values nested deeper than ${MAX_VALUE_DEPTH}`;
  }
  return {
    traceId: decodeId(field(s, 'traceId', 'trace_id'), 16, `${where}.traceId`),
    spanId,
    parentSpanId: decodeId(field(s, 'parentSpanId', 'parent_span_id'), 8, `${where}.parentSpanId`),
    name: optionalString(s.name, `${where}.name`),
    startTimeMs: decodeNanos(
      field(s, 'startTimeUnixNano', 'start_time_unix_nano'),
      `${where}.startTimeUnixNano`,
    ),
    endTimeMs: decodeNanos(
      field(s, 'endTimeUnixNano', 'end_time_unix_nano'),
      `${where}.endTimeUnixNano`,
    ),
    attributes,
    statusCode: status ? decodeStatusCode(status.code, `${where}.status.code`) : 0,
    statusMessage: status ? optionalString(status.message, `${where}.status.message`) : '',
    ...(problem === undefined ? {} : { problem }),
  };
}

/** Hex is the OTLP/JSON form; base64 (the generic protobuf JSON form for bytes) is the fallback. */
function decodeId(value: unknown, bytes: number, where: string): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'string') throw badRequest(`${where}: expected a hex string`);
  if (value.length === bytes * 2 && HEX.test(value)) return value.toLowerCase();
  if (BASE64.test(value)) {
    const raw = Buffer.from(value, 'base64');
    if (raw.length === bytes) return raw.toString('hex');
  }
  throw badRequest(`${where}: expected ${bytes} bytes as hex (or base64)`);
}

function decodeNanos(value: unknown, where: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value / 1e6;
  if (typeof value === 'string' && UINT.test(value)) return nanosDigitsToMs(value);
  throw badRequest(`${where}: expected an unsigned integer (nanoseconds)`);
}

/**
 * Splits at the millisecond digit so the integer part stays exact and only the sub-ms fraction is
 * rounded once; going through a single Number(ns) would lose ~256 ns on current epoch times.
 */
export function nanosDigitsToMs(digits: string): number {
  if (digits.length <= 6) return Number(digits) / 1e6;
  return Number(digits.slice(0, -6)) + Number(digits.slice(-6)) / 1e6;
}

function decodeStatusCode(value: unknown, where: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string') {
    const named = STATUS_NAMES[value];
    if (named !== undefined) return named;
    if (/^\d{1,9}$/.test(value)) return Number(value);
  }
  throw badRequest(`${where}: expected a status code number or STATUS_CODE_* name`);
}

function decodeKeyValues(value: unknown, where: string, depth: number): Attrs {
  const out: Attrs = {};
  if (value === undefined || value === null) return out;
  const list = expectArray(value, where);
  for (let i = 0; i < list.length; i++) {
    const kv = expectObject(list[i], `${where}[${i}]`);
    if (typeof kv.key !== 'string') throw badRequest(`${where}[${i}].key: expected a string`);
    setAttr(out, kv.key, decodeAnyValue(kv.value, `${where}[${i}].value`, depth));
  }
  return out;
}

function decodeAnyValue(value: unknown, where: string, depth: number): AttrValue {
  if (value === undefined || value === null) return null;
  if (depth >= MAX_VALUE_DEPTH) throw new NestingTooDeep(where);
  const v = expectObject(value, where);
  let x: unknown;
  if ((x = field(v, 'stringValue', 'string_value')) !== undefined) return expectString(x, where);
  if ((x = field(v, 'boolValue', 'bool_value')) !== undefined) {
    if (typeof x !== 'boolean') throw badRequest(`${where}.boolValue: expected a boolean`);
    return x;
  }
  if ((x = field(v, 'intValue', 'int_value')) !== undefined) return decodeInt(x, where);
  if ((x = field(v, 'doubleValue', 'double_value')) !== undefined) return decodeDouble(x, where);
  if ((x = field(v, 'bytesValue', 'bytes_value')) !== undefined) return expectString(x, where);
  if ((x = field(v, 'arrayValue', 'array_value')) !== undefined) {
    const values = x === null ? undefined : expectObject(x, `${where}.arrayValue`).values;
    if (values === undefined || values === null) return [];
    return expectArray(values, `${where}.arrayValue.values`).map((e, i) =>
      decodeAnyValue(e, `${where}.arrayValue.values[${i}]`, depth + 1),
    );
  }
  if ((x = field(v, 'kvlistValue', 'kvlist_value')) !== undefined) {
    const values = x === null ? undefined : expectObject(x, `${where}.kvlistValue`).values;
    return decodeKeyValues(values, `${where}.kvlistValue.values`, depth + 1);
  }
  return null;
}

function decodeInt(x: unknown, where: string): number {
  if (typeof x === 'number' && Number.isInteger(x)) return x;
  if (typeof x === 'string' && INT.test(x)) return Number(x);
  throw badRequest(`${where}.intValue: expected an integer`);
}

/** The JSON mapping spells non-finite doubles as strings. */
function decodeDouble(x: unknown, where: string): number {
  if (typeof x === 'number') return x;
  if (typeof x === 'string' && x.trim() !== '') {
    const n = Number(x);
    if (!Number.isNaN(n) || x === 'NaN') return n;
  }
  throw badRequest(`${where}.doubleValue: expected a number`);
}

/** `out[key] = v` would set the prototype for the key "__proto__" instead of storing it. */
export function setAttr(out: Attrs, key: string, value: AttrValue): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else out[key] = value;
}

function field(o: Obj, camel: string, snake: string): unknown {
  const v = o[camel];
  return v === undefined ? o[snake] : v;
}

function expectObject(value: unknown, where: string): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest(`${where}: expected an object`);
  return value as Obj;
}

function optionalObject(value: unknown, where: string): Obj | undefined {
  return value === undefined || value === null ? undefined : expectObject(value, where);
}

function expectArray(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw badRequest(`${where}: expected an array`);
  return value;
}

function optionalString(value: unknown, where: string): string {
  return value === undefined || value === null ? '' : expectString(value, where);
}

function expectString(value: unknown, where: string): string {
  if (typeof value !== 'string') throw badRequest(`${where}: expected a string`);
  return value;
}
