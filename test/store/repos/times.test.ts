import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { execute, type Db } from '../../../src/store/db.ts';
import { findSessionRow } from '../../../src/store/sessions-repo.ts';
import { countSpansPerMinute, insertSpans, listSpans } from '../../../src/store/spans-repo.ts';
import { backends } from '../../helpers/backends.ts';
import { project, useRepoStore } from '../../helpers/repo-store.ts';
import { span } from '../../helpers/spans.ts';

/**
 * Times read back exactly on each driver, through drizzle's tables and raw queries alike
 * (src/store/pg-time.ts, docs/ingest.md#times-read-back): every year ingest admits, and what a
 * Date cannot hold read as the nearest it can.
 */
describe.each(backends)('$name', ({ name, available }) => {
  describe.runIf(available)(available ? 'times read back' : `skipped: no ${name}`, () => {
    const db = useRepoStore(name);

    /** One raw value as the driver reads it, with the session's time zone set to `zone`. */
    const readRaw = (value: string, zone = 'UTC') =>
      db().transaction(async (tx) => {
        const t = tx as unknown as Db;
        await execute(t, sql`select set_config('TimeZone', ${zone}, true)`);
        const { rows } = await execute<{ t: unknown }>(t, sql`select ${value}::timestamptz as t`);
        return rows[0]?.t;
      });

    it.each(['0001', '0050', '0099', '0100', '0500', '0999', '1969', '9999'])(
      'a span of the year %s reads back in that year, in tables and raw queries',
      async (year) => {
        const p = project();
        const at = new Date(`${year}-06-15T12:34:56.789Z`);
        const s = span(p, at, { sessionId: 'old', endedAt: new Date(at.getTime() + 1000) });
        await insertSpans(db(), [s]);
        const [back] = await listSpans(db(), { projectId: p, limit: 1 });
        expect(back?.startedAt.toISOString()).toBe(at.toISOString());
        expect(back?.endedAt.toISOString()).toBe(s.endedAt.toISOString());
        expect((await findSessionRow(db(), p, 'old'))?.firstCallAt.toISOString()).toBe(
          at.toISOString(),
        );
        const minute = new Date(`${year}-06-15T12:34:00.000Z`);
        const counts = await countSpansPerMinute(db(), p, minute, new Date(at.getTime() + 60_000));
        expect(counts.map((c) => c.minute.toISOString())).toEqual([minute.toISOString()]);
      },
    );

    it('reads any session time zone, local mean time offsets with seconds included', async () => {
      for (const zone of ['UTC', 'Asia/Kolkata', 'America/Sao_Paulo', 'Pacific/Chatham']) {
        for (const iso of [
          '0001-01-01T00:00:00.000Z',
          '1883-11-18T12:00:00.000Z',
          '2024-03-31T01:30:00.250Z',
        ])
          expect(((await readRaw(iso, zone)) as Date).toISOString()).toBe(iso);
      }
    });

    it('reads BC as astronomical years and infinity as the nearest time a Date holds', async () => {
      const iso = async (text: string) => ((await readRaw(text)) as Date).toISOString();
      expect(await iso('0044-03-15 12:00:00+00 BC')).toBe('-000043-03-15T12:00:00.000Z');
      expect(await iso('0001-12-31 23:59:59+00 BC')).toBe('0000-12-31T23:59:59.000Z');
      expect(await iso('infinity')).toBe('+275760-09-13T00:00:00.000Z');
      expect(await iso('-infinity')).toBe('-271821-04-20T00:00:00.000Z');
      expect(await iso('294276-12-31 23:59:59+00')).toBe('+275760-09-13T00:00:00.000Z');
    });
  });
});
