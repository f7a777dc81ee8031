import { listAllPricing, type PricingRow } from '../store/costs-repo.ts';
import type { Db } from '../store/db.ts';
import {
  DEFAULT_PRICES,
  DEFAULT_PRICES_AS_OF,
  normalizeModelId,
  prefixMatches,
} from './default-prices.ts';

/** One dated price of a model: shipped (`default`, in effect since always) or a project's own. */
export interface PriceRecord {
  modelId: string;
  provider: string;
  input: number;
  output: number;
  cacheRead: number | null;
  cacheWrite: number | null;
  /** -Infinity for the shipped defaults. */
  fromMs: number;
  updatedAt: Date;
  source: 'default' | 'custom';
}

/** A model id's records, oldest first. */
interface Timeline {
  key: string;
  records: PriceRecord[];
}

const MEMO_LIMIT = 10_000;
const DEFAULTS_UPDATED = new Date(`${DEFAULT_PRICES_AS_OF}T00:00:00Z`);

/**
 * One project's prices, compiled for the ingest path: model ids by length (longest prefix wins),
 * and each raw span model id remembered with the timelines that match it, so a batch of spans of
 * a few models does the prefix search a few times, not once per span.
 */
export class PriceTable {
  private readonly timelines: Timeline[];
  private readonly memo = new Map<string, Timeline[]>();

  constructor(custom: readonly PricingRow[]) {
    const byKey = new Map<string, PriceRecord[]>();
    for (const [key, p] of Object.entries(DEFAULT_PRICES)) {
      byKey.set(key, [
        {
          modelId: key,
          provider: p.provider,
          input: p.input,
          output: p.output,
          cacheRead: p.cacheRead ?? null,
          cacheWrite: p.cacheWrite ?? null,
          fromMs: -Infinity,
          updatedAt: DEFAULTS_UPDATED,
          source: 'default',
        },
      ]);
    }
    for (const r of custom) {
      const list = byKey.get(r.modelId) ?? [];
      list.push({
        modelId: r.modelId,
        provider: r.provider,
        input: r.inputPer1mUsd,
        output: r.outputPer1mUsd,
        cacheRead: r.cacheReadPer1mUsd,
        cacheWrite: r.cacheWritePer1mUsd,
        fromMs: r.effectiveFrom.getTime(),
        updatedAt: r.updatedAt,
        source: 'custom',
      });
      byKey.set(r.modelId, list);
    }
    this.timelines = [...byKey].map(([key, records]) => ({
      key,
      records: records.sort((a, b) => a.fromMs - b.fromMs),
    }));
    // Longest first; among keys of one length any fixed order does (two of them cannot both
    // prefix one id). Compared by code unit: `localeCompare` built ICU's collator, 9-14 ms of CPU
    // in the first table's construction, on every server's start-up path (createServices).
    this.timelines.sort((a, b) => b.key.length - a.key.length || (a.key < b.key ? -1 : 1));
  }

  /** The price of a model at an instant: the longest matching id's latest record from before it; null = unknown model. */
  lookup(modelId: string, atMs: number): PriceRecord | null {
    let candidates = this.memo.get(modelId);
    if (candidates === undefined) {
      const id = normalizeModelId(modelId);
      candidates = this.timelines.filter((t) => prefixMatches(id, t.key));
      if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
      this.memo.set(modelId, candidates);
    }
    for (const t of candidates) {
      const r = latestAt(t.records, atMs);
      if (r) return r;
    }
    return null;
  }

  /** Every model id's record in effect at `atMs`, or every record with `history`. */
  records(atMs: number, history: boolean): PriceRecord[] {
    const out: PriceRecord[] = [];
    for (const t of this.timelines) {
      if (history) out.push(...t.records);
      else {
        const r = latestAt(t.records, atMs);
        if (r) out.push(r);
      }
    }
    return out.sort((a, b) => a.modelId.localeCompare(b.modelId) || a.fromMs - b.fromMs);
  }
}

function latestAt(records: readonly PriceRecord[], atMs: number): PriceRecord | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i] as PriceRecord;
    if (r.fromMs <= atMs) return r;
  }
  return undefined;
}

/**
 * Every project's price table, in memory: loaded at start, reloaded after each pricing change and
 * periodically (another process may share the database). Projects without records of their own
 * share the defaults' table. Reloads are serialised so an older read never replaces a newer one.
 */
export class PriceBook {
  private readonly defaults = new PriceTable([]);
  private tables = new Map<string, PriceTable>();
  private loading: Promise<void> = Promise.resolve();

  constructor(private readonly db: Db) {}

  table(projectId: string): PriceTable {
    return this.tables.get(projectId) ?? this.defaults;
  }

  reload(): Promise<void> {
    this.loading = this.loading
      .catch(() => undefined)
      .then(async () => {
        const byProject = new Map<string, PricingRow[]>();
        for (const r of await listAllPricing(this.db)) {
          const list = byProject.get(r.projectId) ?? [];
          list.push(r);
          byProject.set(r.projectId, list);
        }
        this.tables = new Map([...byProject].map(([p, rows]) => [p, new PriceTable(rows)]));
      });
    return this.loading;
  }

  forget(projectId: string): void {
    this.tables.delete(projectId);
  }
}
