import { bigint, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The fence of the background-job leader (src/scale/coord/leadership.ts), one row per cluster name.
 * `token` only grows: a leader records its Redis fencing token on acquiring and on every renewal,
 * and a write carrying a smaller token than the stored one is refused, so an old leader that still
 * believes its lease (paused, partitioned from Redis) learns on its next renewal that it was replaced.
 */
export const jobLeader = pgTable('job_leader', {
  name: text('name').primaryKey(),
  token: bigint('token', { mode: 'number' }).notNull(),
  holder: text('holder').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
});
