import { doublePrecision, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A project's own model prices (docs/costs.md), effective-dated: a change is a new row from its
 * effective_from, so spans keep the price they were stored with. The shipped defaults are not
 * stored (src/costs/default-prices.ts); a project's rows override them for that model id.
 */
export const modelPricing = pgTable(
  'model_pricing',
  {
    projectId: text('project_id').notNull(),
    /** Lower case, without a `provider/` prefix: the form span model ids are matched in. */
    modelId: text('model_id').notNull(),
    provider: text('provider').notNull(),
    inputPer1mUsd: doublePrecision('input_per_1m_usd').notNull(),
    outputPer1mUsd: doublePrecision('output_per_1m_usd').notNull(),
    cacheReadPer1mUsd: doublePrecision('cache_read_per_1m_usd'),
    cacheWritePer1mUsd: doublePrecision('cache_write_per_1m_usd'),
    effectiveFrom: ts('effective_from').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.modelId, t.effectiveFrom] })],
);
