import { describe, expect, it } from 'vitest';
import {
  MAX_PARAMS,
  diffParams,
  diffToolLists,
  flattenParams,
} from '../../ui/src/lib/schema-diff.ts';

const schema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});

describe('schema diff of tool lists', () => {
  it('names the changed, removed and added parameters, nested ones by dotted path', () => {
    const before = schema(
      {
        id: { type: 'string' },
        opts: schema({ mode: { type: 'string' } }),
        old: { type: 'number' },
      },
      ['id'],
    );
    const after = schema(
      { id: { type: 'integer' }, opts: schema({ mode: { type: 'string', enum: ['a'] } }), add: {} },
      ['id'],
    );
    expect(diffParams(before, after).map((r) => `${r.status} ${r.path}`)).toEqual([
      'removed old',
      'changed id',
      'changed opts.mode',
      'added add',
      'same opts',
    ]);
    const id = diffParams(before, after)[1];
    expect([id?.before, id?.after]).toEqual([
      'required {"type":"string"}',
      'required {"type":"integer"}',
    ]);
  });

  it('marks a parameter that became required as changed, and array items by []', () => {
    const rows = diffParams(
      schema({ rows: { type: 'array', items: schema({ id: { type: 'string' } }) } }),
      schema({ rows: { type: 'array', items: schema({ id: { type: 'string' } }) } }, ['rows']),
    );
    expect(rows.map((r) => `${r.status} ${r.path}`)).toEqual(['changed rows', 'same rows[].id']);
  });

  it('lists only tools that differ: added, removed, description or schema changed', () => {
    const a = { name: 'a', description: 'A', inputSchema: schema({ x: { type: 'string' } }) };
    const b = { name: 'b', description: 'B', inputSchema: schema({}) };
    const c = { name: 'c', description: 'C' };
    const diff = diffToolLists([a, b, c], [{ ...a }, { ...b, description: 'B!' }, { name: 'd' }]);
    expect(diff.map((t) => `${t.status} ${t.name}`)).toEqual(['changed b', 'removed c', 'added d']);
    expect(diff[0]?.description).toEqual({ before: 'B', after: 'B!' });
  });

  it('survives hostile schemas: deep nesting and huge parameter counts are cut off', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100; i++) deep = schema({ n: deep });
    expect(flattenParams(deep).size).toBeLessThan(20);
    const wide = schema(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, {}])));
    expect(flattenParams(wide).size).toBe(MAX_PARAMS);
    expect(flattenParams('not a schema').size).toBe(0);
  });
});
