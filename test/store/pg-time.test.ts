import { describe, expect, it } from 'vitest';
import { parsePgTimestamp } from '../../src/store/pg-time.ts';

/** PostgreSQL's timestamp text (DateStyle ISO) read without Date's legacy parser (docs/ingest.md#times-read-back). */
describe('parsePgTimestamp', () => {
  it.each([
    ['0001-01-01 00:00:00+00', '0001-01-01T00:00:00.000Z'],
    ['0050-06-01 12:34:56.789123+00', '0050-06-01T12:34:56.789Z'],
    ['0099-12-31 23:59:59.5+00', '0099-12-31T23:59:59.500Z'],
    ['0100-01-01 00:00:00+00', '0100-01-01T00:00:00.000Z'],
    ['0999-12-31 23:59:59.999+00', '0999-12-31T23:59:59.999Z'],
    ['2024-02-29 10:00:00+05:30', '2024-02-29T04:30:00.000Z'],
    ['2024-01-01 00:00:00-03', '2024-01-01T03:00:00.000Z'],
    // Local mean time before time zones: offsets with seconds.
    ['0001-01-01 05:53:28+05:53:28', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31 23:59:59.999999+00', '9999-12-31T23:59:59.999Z'],
    // A timestamp without time zone is read as UTC, as drizzle reads one.
    ['2024-01-01 00:00:00', '2024-01-01T00:00:00.000Z'],
  ])('%s is %s', (text, iso) => {
    expect(parsePgTimestamp(text).toISOString()).toBe(iso);
  });

  it('reads BC as astronomical years (1 BC is year 0)', () => {
    expect(parsePgTimestamp('0001-12-31 23:59:59+00 BC').toISOString()).toBe(
      '0000-12-31T23:59:59.000Z',
    );
    expect(parsePgTimestamp('0044-03-15 12:00:00+00 BC').toISOString()).toBe(
      '-000043-03-15T12:00:00.000Z',
    );
    expect(parsePgTimestamp('4714-11-24 00:00:00+00 BC').toISOString()).toBe(
      '-004713-11-24T00:00:00.000Z',
    );
  });

  it('reads infinity and years beyond what a Date holds as the nearest time it holds', () => {
    const latest = '+275760-09-13T00:00:00.000Z';
    expect(parsePgTimestamp('infinity').toISOString()).toBe(latest);
    expect(parsePgTimestamp('294276-12-31 23:59:59+00').toISOString()).toBe(latest);
    expect(parsePgTimestamp('275760-09-13 00:00:00-01').toISOString()).toBe(latest);
    expect(parsePgTimestamp('-infinity').toISOString()).toBe('-271821-04-20T00:00:00.000Z');
  });

  it('leaves text of another DateStyle to Date, as before', () => {
    expect(parsePgTimestamp('Mon Jan 01 00:00:00 2024 UTC').toISOString()).toBe(
      '2024-01-01T00:00:00.000Z',
    );
  });
});
