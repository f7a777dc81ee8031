import { expect, it } from 'vitest';
import { isDroppedTypesQuery } from '../../src/store/pg-types-guard.ts';

it("recognises only postgres.js's own array-types query among escaped database errors", () => {
  const escaped = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
    query: 'select b.oid, b.typarray from pg_catalog.pg_type a left join pg_catalog.pg_type b',
  });
  expect(isDroppedTypesQuery(escaped)).toBe(true);
  const ours = Object.assign(new Error('connect ECONNREFUSED'), { query: 'select 1' });
  expect(isDroppedTypesQuery(ours)).toBe(false);
  expect(isDroppedTypesQuery(new Error('boom'))).toBe(false);
  expect(isDroppedTypesQuery(null)).toBe(false);
});
