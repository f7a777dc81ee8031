import { describe, expect, it } from 'vitest';
import { canonicalJson, hashTools } from '../../src/health/schema-hash.ts';

const tool = (over: Record<string, unknown> = {}) => ({
  name: 'search',
  description: 'Search documents',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      mode: { type: 'string', enum: ['fast', 'deep', 'exact'] },
      limit: { type: 'integer' },
    },
    required: ['query', 'mode'],
  },
  ...over,
});

describe('schema hash (decisions §5)', () => {
  it('is SHA-256 hex of canonical JSON with keys sorted at every depth', () => {
    expect(hashTools([tool()])).toMatch(/^[0-9a-f]{64}$/);
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,1]},"b":1}',
    );
    const reordered = {
      inputSchema: tool().inputSchema,
      description: 'Search documents',
      name: 'search',
    };
    expect(hashTools([reordered])).toBe(hashTools([tool()]));
  });

  it('does not depend on the order tools are listed in', () => {
    const other = { name: 'alpha', inputSchema: { type: 'object' } };
    expect(hashTools([tool(), other])).toBe(hashTools([other, tool()]));
  });

  it('treats required and enum as sets: reordering them is not drift', () => {
    const shuffled = tool({
      inputSchema: {
        required: ['mode', 'query'],
        properties: {
          limit: { type: 'integer' },
          mode: { enum: ['exact', 'fast', 'deep'], type: 'string' },
          query: { type: 'string' },
        },
        type: 'object',
      },
    });
    expect(hashTools([shuffled])).toBe(hashTools([tool()]));
  });

  it('keeps the order of data arrays (defaults, examples, const) and of enum values that are objects', () => {
    const a = tool({
      inputSchema: { type: 'object', properties: { p: { type: 'array', default: [1, 2] } } },
    });
    const b = tool({
      inputSchema: { type: 'object', properties: { p: { type: 'array', default: [2, 1] } } },
    });
    expect(hashTools([a])).not.toBe(hashTools([b]));
  });

  it('does not treat a property named "required" or "enum" as a keyword', () => {
    const a = tool({
      inputSchema: { type: 'object', properties: { enum: { type: 'array', default: ['b', 'a'] } } },
    });
    const b = tool({
      inputSchema: { type: 'object', properties: { enum: { type: 'array', default: ['a', 'b'] } } },
    });
    expect(hashTools([a])).not.toBe(hashTools([b]));
  });

  it('hashes only name, title, description, inputSchema, outputSchema and annotations', () => {
    const decorated = tool({
      icons: [{ src: 'https://x/icon.png' }],
      _meta: { build: 7 },
      execution: { taskSupport: 'optional' },
    });
    expect(hashTools([decorated])).toBe(hashTools([tool()]));
    expect(hashTools([tool({ annotations: { readOnlyHint: true } })])).not.toBe(
      hashTools([tool()]),
    );
    expect(hashTools([tool({ outputSchema: { type: 'object' } })])).not.toBe(hashTools([tool()]));
    expect(hashTools([tool({ title: 'Search' })])).not.toBe(hashTools([tool()]));
  });

  it('does not normalise whitespace or invisible characters (they hide poisoned text)', () => {
    expect(hashTools([tool({ description: 'Search documents ' })])).not.toBe(hashTools([tool()]));
    expect(hashTools([tool({ description: 'Search\u200b documents' })])).not.toBe(
      hashTools([tool()]),
    );
    expect(hashTools([tool({ description: 'Search documents'.normalize('NFD') })])).toBe(
      hashTools([tool()]),
    );
    expect(hashTools([tool({ description: 'Cafe\u0301' })])).not.toBe(
      hashTools([tool({ description: 'Caf\u00e9' })]),
    );
  });
});
