import { pino } from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { guardDroppedTypesQuery } from '../../src/store/pg-types-guard.ts';
import { guardPostgresDriver, isDriverNullSocket } from '../../src/store/postgres-guard.ts';

/**
 * The guards for postgres.js's escapes are the process's listeners (src/store/postgres-guard.ts),
 * installed by the process entry: however often they are asked for (two entries, two apps), the
 * process gets one of each.
 */
let uncaughtBefore: NodeJS.UncaughtExceptionListener[] = [];
let rejectionBefore: NodeJS.UnhandledRejectionListener[] = [];
const addedUncaught = () =>
  process.listeners('uncaughtException').filter((l) => !uncaughtBefore.includes(l));
const addedRejection = () =>
  process.listeners('unhandledRejection').filter((l) => !rejectionBefore.includes(l));

beforeEach(() => {
  uncaughtBefore = process.listeners('uncaughtException');
  rejectionBefore = process.listeners('unhandledRejection');
});

afterEach(() => {
  for (const l of addedUncaught()) process.removeListener('uncaughtException', l);
  for (const l of addedRejection()) process.removeListener('unhandledRejection', l);
});

it('installs each process-wide guard once, however many times it is asked for', () => {
  const logger = pino({ level: 'silent' });
  guardPostgresDriver(() => {});
  guardPostgresDriver(() => {});
  guardDroppedTypesQuery(logger);
  guardDroppedTypesQuery(logger);
  expect(addedUncaught()).toHaveLength(1);
  expect(addedRejection()).toHaveLength(1);
  // The driver guard runs before any other listener, as it must to swallow its one error first.
  expect(process.listeners('uncaughtException')[0]).toBe(addedUncaught()[0]);
});

it("knows the driver's null-socket write, thrown or as vitest hands it over, and nothing else", () => {
  const stack = `TypeError: Cannot read properties of null (reading 'write')
    at Immediate.nextWrite (file:///app/node_modules/postgres/src/connection.js:255:22)`;
  const thrown = Object.assign(new TypeError("Cannot read properties of null (reading 'write')"), {
    stack,
  });
  expect(isDriverNullSocket(thrown)).toBe(true);
  expect(isDriverNullSocket({ name: 'TypeError', message: thrown.message, stack })).toBe(true);
  expect(isDriverNullSocket({ name: 'Error', message: thrown.message, stack })).toBe(false);
  expect(
    isDriverNullSocket(new TypeError("Cannot read properties of null (reading 'write')")),
  ).toBe(false);
  expect(isDriverNullSocket(null)).toBe(false);
});
