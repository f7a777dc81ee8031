import type { FastifyInstance } from 'fastify';
import { SpyglassError, type ValidationIssue } from '../errors.ts';
import { MAX_BODY_DEPTH, jsonDepth } from '../normalize/json-limits.ts';

/** Longest path or query parameter value accepted (a GraphQL GET query is the long case). */
const MAX_PARAM_CHARS = 8192;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * One check for every route's path and query parameters, before any handler sees them: NUL
 * (which PostgreSQL text cannot hold), other control characters except tab and line breaks,
 * unpaired surrogates and oversized values give 400 naming the parameter, never a 500 from storage.
 * JSON bodies are checked for NUL in any string (key or value) and for nesting deeper than
 * MAX_BODY_DEPTH (422, before any handler or serialiser recurses through them) too, except on the
 * span receivers, which judge each span on its own so one bad span does not sink a batch.
 */
export function guardParameters(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    const issues: ValidationIssue[] = [];
    check('path', req.params, issues);
    check('query', req.query, issues);
    const first = issues[0];
    if (first)
      throw new SpyglassError(
        'bad_request',
        `${first.loc[0]} parameter ${String(first.loc[1])} ${first.msg}`,
      );
    const { rateLimitKey } = req.routeOptions.config;
    const receiver = rateLimitKey === 'spans' || rateLimitKey === 'otlp';
    if (
      receiver ||
      req.body === null ||
      typeof req.body !== 'object' ||
      ArrayBuffer.isView(req.body)
    )
      return;
    if (jsonDepth(req.body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
      throw new SpyglassError('validation', 'request body too deep', {
        issues: [
          {
            loc: ['body'],
            msg: `Input should nest at most ${MAX_BODY_DEPTH} levels`,
            type: 'too_deep',
          },
        ],
      });
    }
    if (containsNul(req.body))
      throw new SpyglassError(
        'bad_request',
        'the request body contains a NUL character (\\u0000), which no field may hold',
      );
  });
}

/** Walks a parsed JSON value without recursion (a deep body cannot overflow the stack). */
function containsNul(root: object): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v)) {
        if (k.includes('\u0000')) return true;
        stack.push(inner);
      }
    }
  }
  return false;
}

function check(where: 'path' | 'query', values: unknown, issues: ValidationIssue[]): void {
  if (!values || typeof values !== 'object') return;
  for (const [name, raw] of Object.entries(values)) {
    for (const value of [raw].flat()) {
      const problem = problemOf(name) ?? (typeof value === 'string' ? problemOf(value) : null);
      if (problem)
        issues.push({ loc: [where, printable(name)], msg: problem, type: 'value_error' });
    }
  }
}

function problemOf(value: string): string | null {
  if (value.length > MAX_PARAM_CHARS) return `is longer than ${MAX_PARAM_CHARS} characters`;
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value))
    return 'contains a control character';
  if (LONE_SURROGATE.test(value)) return 'is not valid UTF-8';
  return null;
}

/** A parameter name safe to echo: control characters shown as \uXXXX, at most 64 characters. */
function printable(name: string): string {
  return name
    .slice(0, 64)
    .replace(
      /[\u0000-\u001f\u007f]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
}
