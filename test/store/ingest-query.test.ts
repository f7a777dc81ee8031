import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { ingestQuery, ingestStatement } from '../../src/store/ingest-query.ts';
import { insertWithRollups } from '../../src/store/rollup-sql.ts';
import { COLUMN_LIST } from '../../src/store/span-rows.ts';

describe('the ingest statement rendered once', () => {
  const dialect = new PgDialect();
  it.each([null, '{"t":[],"s":[],"l":[],"h":[]}'])(
    'is the statement insertWithRollups builds, with the values in its places (rollups %s)',
    (rollups) => {
      const { sql, params } = dialect.sqlToQuery(
        insertWithRollups(COLUMN_LIST, '[{"a":"$1"}]', 3, rollups),
      );
      expect(ingestQuery('[{"a":"$1"}]', 3, rollups)).toEqual({ sql, params });
      expect(dialect.sqlToQuery(ingestStatement('[{"a":"$1"}]', 3, rollups))).toMatchObject({
        sql,
        params,
      });
    },
  );
});
