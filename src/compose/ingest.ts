import type { CostService } from '../costs/cost-service.ts';
import { Registrar } from '../catalog/registrar.ts';
import { IgnoredSpansLog } from '../ingest/ignored-spans-log.ts';
import { ingestSpans, type IngestDeps, type IngestResult } from '../ingest/ingest-service.ts';
import { KnownProjects } from '../ingest/known-projects.ts';
import { LanedWriter } from '../ingest/laned-writer.ts';
import type { EncodedSpans, WriterOptions } from '../ingest/writer.ts';
import { RateLimitWarnings } from '../ingest/rate-limit-warnings.ts';
import type { EventBus } from '../live/bus.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Span } from '../model/span.ts';
import type { SettingsService } from '../settings/settings-service.ts';
import { findProject } from '../store/projects-repo.ts';
import type { Store } from '../store/open-store.ts';
import { copySpans, CopyEncoder } from '../store/span-copy.ts';
import type { StoredSpans } from '../store/span-rows.ts';
import { beginEarly, type EarlyTransaction } from '../store/early-transaction.ts';
import { encodeSpans, insertSpansPrepared } from '../store/spans-repo.ts';
import type { LineageCache } from '../store/lineage-cache.ts';
import { StatsKeeper } from '../store/stats-keeper.ts';
import type { Base } from './core.ts';

/** The ingest path (docs/ingest.md): redact, price, commit through the writer, publish, register. */
export interface Ingest {
  writer: LanedWriter;
  registrar: Registrar;
  /** Keeps planner statistics current; started by startServer. */
  stats: StatsKeeper;
  rateLimitWarnings: RateLimitWarnings;
  ignoredSpans: IgnoredSpansLog;
  ingest(spans: Span[]): Promise<IngestResult>;
  /** Drops the registered names, known id and prices of a deleted project. */
  forgetProject(id: string): void;
  /** Commits every acknowledged span. */
  close(): Promise<void>;
}

export interface IngestParts {
  settings: SettingsService;
  /** Loaded: ingest prices spans with its book and tool rules. */
  costs: CostService;
  bus: EventBus;
  metrics: Metrics;
  /** Called with every committed batch (the alert producers). */
  onCommitted?: IngestDeps['onCommitted'];
  /** The spans-per-minute limit of a project, when rate limits are on. */
  takeSpans?: IngestDeps['takeSpans'];
  /** Told the hours of every commit group (they write lineage rows), when there is one. */
  lineage?: LineageCache | null;
}

export function createIngest({ config, store, logger }: Base, p: IngestParts): Ingest {
  const writer = new LanedWriter(
    {
      ...spanCommit(store, p.lineage),
      maxQueuedSpans: config.ingest.maxQueuedSpans,
      maxQueuedSpansPerProject: config.ingest.maxQueuedSpansPerProject,
      maxCommitSpans: config.ingest.maxCommitSpans,
      logger,
    },
    store.kind === 'postgres' ? config.ingest.commitLanes : 1,
  ); // PGlite runs one statement at a time anyway
  const registrar = new Registrar(store.db, logger);
  const knownProjects = new KnownProjects(
    async (id) => (await findProject(store.db, id)) !== undefined,
  );
  // PGlite: a 6,000-row sample instead of 30,000, since ingest waits while it is read.
  const stats = new StatsKeeper(store.db, logger, {
    statisticsTarget: store.kind === 'pglite' ? 20 : undefined,
  });
  const deps: IngestDeps = {
    writer,
    settings: p.settings,
    registrar,
    bus: p.bus,
    projects: knownProjects,
    pricing: { book: p.costs.book, rules: p.costs.rules },
    onIngested: (n: number) => {
      p.metrics.spansIngested.inc(n);
      stats.noteWritten(n);
    },
    onCommitted: p.onCommitted,
    takeSpans: p.takeSpans,
  };
  return {
    writer,
    registrar,
    stats,
    rateLimitWarnings: new RateLimitWarnings(logger),
    ignoredSpans: new IgnoredSpansLog(logger),
    ingest: (spans) => ingestSpans(deps, spans),
    forgetProject: (id) => {
      registrar.forgetProject(id);
      knownProjects.forget(id);
      p.costs.book.forget(id);
    },
    close: () => writer.close(),
  };
}

/**
 * Groups smaller than this go through the statement on PostgreSQL. With the connections' Nagle
 * delays gone (store/pg-socket.ts: each of COPY's four round trips could wait 40 ms for a delayed
 * ACK), COPY cost PostgreSQL less CPU per span than the statement at every group size measured,
 * and the server about as much from 100 spans (docs/benchmarks.md, batch 25 on PostgreSQL); it
 * was 500.
 */
const COPY_MIN_SPANS = 100;
/**
 * On PGlite, where a round trip is a message to its thread: COPY's transaction cost more than it
 * saved at 100 spans and less from about 300 (docs/benchmarks.md, the embedded default faster).
 */
const PGLITE_COPY_MIN_SPANS = 250;
/**
 * A request is encoded for COPY when it arrives if it has at least this many spans or the group
 * it will likely join is large enough for COPY (what its lane has waiting or committing, or held
 * in its last group), else as the statement's JSON: each for the commit its group most likely
 * takes; at commit a request in the other form is encoded again alone (`recode`). Encoding every request
 * for COPY made a group of small ones encode twice, COPY's rows at arrival and the statement's
 * JSON at commit: at batch 25 on PostgreSQL the server's CPU per span had risen by half; encoding
 * every small one as JSON did the same the other way once batch-25 groups were committed by COPY
 * (docs/benchmarks.md).
 */
const COPY_ENCODE_MIN_SPANS = 100;
const isJson = (e: EncodedSpans): e is string => typeof e === 'string';

/**
 * How the writer encodes and commits a group: COPY for large groups (span-copy.ts; on PGlite
 * through its thread), falling back to the statement when the group holds a span already stored;
 * the statement for small ones; both prepared on the connection (insertSpansPrepared).
 */
export function spanCommit(
  store: Store,
  lineage?: Pick<LineageCache, 'writing'> | null,
): Pick<WriterOptions, 'encode' | 'recode' | 'commit' | 'open'> {
  // The writer's own pool on PostgreSQL (open-store.ts): its statements stay prepared and planned
  // on a connection per lane instead of going round the reads' pool.
  const { writer: client, pgliteCopyIn } = store;
  const minSpans = pgliteCopyIn ? PGLITE_COPY_MIN_SPANS : COPY_MIN_SPANS;
  // The writer's own: its scratch buffer is kept between requests (span-copy.ts).
  const copy = new CopyEncoder();
  const encodeCopy = (spans: readonly Span[]) => copy.encode(spans);
  return {
    // PostgreSQL: each group's transaction begun while the group forms (early-transaction.ts).
    // PGlite runs one statement at a time on its thread: a transaction held open there would
    // hold back every other query.
    ...(pgliteCopyIn ? {} : { open: () => beginEarly(client) }),
    encode: (spans, groupSpans = spans.length) =>
      spans.length >= COPY_ENCODE_MIN_SPANS || groupSpans >= minSpans
        ? encodeCopy(spans)
        : encodeSpans(spans),
    // At commit, a request encoded for the other form is encoded again alone (not its group).
    recode: (spans, enc, groupSpans) => {
      const copyGroup = groupSpans >= minSpans;
      if (isJson(enc) !== copyGroup) return enc; // already in the group's form
      return copyGroup ? encodeCopy(spans) : encodeSpans(spans);
    },
    // The lineage cache is told the group's hours before the commit and again once it has ended,
    // committed or not: its sums of those hours are not used meanwhile nor kept (lineage-cache.ts).
    commit: async (spans, enc, early) => {
      const written = lineage?.writing(spans);
      try {
        return await commitGroup(spans, enc, early);
      } finally {
        written?.done();
      }
    },
  };
  async function commitGroup(
    spans: readonly Span[],
    enc: readonly EncodedSpans[],
    early: EarlyTransaction | undefined,
  ): Promise<StoredSpans> {
    // A small group pays more for COPY's extra round trips (begin, COPY, upsert, commit) than
    // it saves in parsing: the statement is one round trip (docs/ingest.md, group commit).
    // The writer recodes each request to the group's form; a group that still holds both
    // (a writer without recode) is encoded again whole.
    if (spans.length < minSpans)
      return insertSpansPrepared(
        client,
        spans,
        enc.every(isJson) ? (enc as string[]) : undefined,
        early,
      );
    const rows = enc.some(isJson) ? [encodeCopy(spans)] : (enc as Uint8Array[]);
    const r = await copySpans(client, spans, rows, pgliteCopyIn, early);
    return r === 'refused' ? insertSpansPrepared(client, spans) : r;
  }
}
