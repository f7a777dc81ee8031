import { describe, expect, it } from 'vitest';
import { field, readState, writeState } from '../../ui/src/lib/url-state.ts';

const schema = {
  agent: field.string(),
  status: field.list(),
  sort: field.oneOf(['started', 'duration', 'cost'] as const, 'started'),
  page: field.number(1),
  utc: field.boolean(),
  from: field.instant(),
  tab: field.oneOf(['tree', 'lineage'] as const, 'tree'),
};

describe('url state', () => {
  it('omits defaults and round-trips every field type', () => {
    const state = {
      agent: 'planner & co',
      status: ['error', 'timeout'],
      sort: 'cost' as const,
      page: 3,
      utc: true,
      from: '2026-01-01T00:00:00.000Z',
      tab: 'tree' as const,
    };
    const params = writeState(state, schema);
    expect(params.toString()).toBe(
      'agent=planner+%26+co&status=error%2Ctimeout&sort=cost&page=3&utc=1&from=2026-01-01T00%3A00%3A00.000Z',
    );
    expect(readState(new URLSearchParams(params.toString()), schema)).toEqual(state);
    expect(writeState(readState(new URLSearchParams(), schema), schema).toString()).toBe('');
  });

  it('falls back to defaults for malformed values and keeps parameters it does not own', () => {
    const read = readState(
      new URLSearchParams('sort=<script>&page=abc&utc=maybe&from=yesterday&a=s1'),
      schema,
    );
    expect(read).toMatchObject({ sort: 'started', page: 1, utc: false, from: null });
    const next = writeState({ tab: 'lineage' }, schema, new URLSearchParams('a=s1&b=s2&tab=tree'));
    expect(next.toString()).toBe('a=s1&b=s2&tab=lineage');
  });
});
