import type { Logger } from 'pino';

/** Where the OTLP selection rule is explained; named in partial_success and in the log. */
export const SELECTION_DOC = 'docs/ingest.md#otlp-span-selection';
/** At most this many projects are remembered (so at most this many lines a minute). */
const MAX_PROJECTS = 1000;

/**
 * OTLP spans that are not agent, LLM or tool spans are not stored. A user who points an existing
 * OpenTelemetry app at Spyglass must be able to find out why nothing shows up, so each project gets
 * one info line a minute with the count since its last line: never a line per export.
 */
export class IgnoredSpansLog {
  private readonly last = new Map<string, number>();
  private readonly pending = new Map<string, number>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly everyMs = 60_000,
  ) {}

  ignored(projectId: string, spans: number): void {
    if (spans <= 0) return;
    const t = this.now();
    const total = (this.pending.get(projectId) ?? 0) + spans;
    const previous = this.last.get(projectId);
    if (previous !== undefined && t - previous < this.everyMs) {
      this.pending.set(projectId, total);
      return;
    }
    if (previous === undefined && this.last.size >= MAX_PROJECTS && !this.forgetOld(t)) return;
    this.last.set(projectId, t);
    this.pending.delete(projectId);
    this.logger.info(
      { project_id: projectId, ignored_spans: total, doc: SELECTION_DOC },
      'OTLP spans ignored: not agent, LLM or tool spans (ingest.otlp_keep_all_spans keeps those of selected traces)',
    );
  }

  /** Drops projects not heard of for a minute; true when that made room. */
  private forgetOld(t: number): boolean {
    for (const [project, at] of this.last) {
      if (t - at < this.everyMs) continue;
      this.last.delete(project);
      this.pending.delete(project);
    }
    return this.last.size < MAX_PROJECTS;
  }
}
