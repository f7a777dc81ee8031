import type { PriceBook } from '../costs/price-book.ts';
import { priceSpans } from '../costs/span-pricer.ts';
import type { ToolCostRules } from '../costs/tool-rules.ts';
import type { EventBus } from '../live/bus.ts';
import { SpyglassError } from '../errors.ts';
import type { TakeResult } from '../scale/limits/limiter.ts';
import { spanNewEvent } from '../model/live-event.ts';
import type { Span } from '../model/span.ts';
import type { Registrar } from '../catalog/registrar.ts';
import type { SettingsService } from '../settings/settings-service.ts';
import type { KnownProjects } from './known-projects.ts';
import type { LanedWriter } from './laned-writer.ts';

export interface IngestDeps {
  writer: LanedWriter;
  settings: SettingsService;
  registrar: Registrar;
  bus: EventBus;
  projects: KnownProjects;
  /** Model prices per project and the tool-cost rules, applied to each span before it is stored. */
  pricing: { book: PriceBook; rules: ToolCostRules };
  /** Counts spans stored through any receiver (metrics). */
  onIngested?: (n: number) => void;
  /** Told of every committed batch (alert producers); must return at once, its work is its own. */
  onCommitted?: (spans: readonly Span[]) => void;
  /**
   * The span-weighted limit (`rate_limits.spans_per_minute`): counts `n` spans of `project`;
   * absent when rate limits are off.
   */
  takeSpans?: (project: string, n: number) => Promise<TakeResult>;
}

/** `stored`: spans newly stored; `duplicates`: spans whose id the project already had (sent again). */
export interface IngestResult {
  stored: number;
  duplicates: number;
}

/**
 * The one ingest path for every receiver: check the projects exist, redact, group-commit, then
 * publish and auto-register. Resolves after the spans are durably committed.
 */
export async function ingestSpans(deps: IngestDeps, spans: Span[]): Promise<IngestResult> {
  if (spans.length === 0) return { stored: 0, duplicates: 0 };
  await deps.projects.check(spans.map((s) => s.projectId));
  if (deps.takeSpans) await takeSpans(deps.takeSpans, spans);
  const redacting = deps.settings.redactPayloads;
  if (redacting) for (const s of spans) redact(s);
  // A large batch's pricing and events are pieces of TURN_SPANS spans with a turn of the event
  // loop between them: 10,000 spans at once held it for tens of ms (issue 25).
  for (let i = 0; i < spans.length; i += TURN_SPANS) {
    if (i > 0) await nextTurn();
    priceSpans(
      spans.length <= TURN_SPANS ? spans : spans.slice(i, i + TURN_SPANS),
      deps.pricing.book,
      deps.pricing.rules,
    );
  }
  const stored = await deps.writer.write(spans);
  deps.onIngested?.(stored);
  const events = spans.length <= TURN_SPANS ? spans.map(spanNewEvent) : [];
  for (let i = 0; spans.length > TURN_SPANS && i < spans.length; i += TURN_SPANS) {
    if (i > 0) await nextTurn();
    for (let k = i; k < Math.min(spans.length, i + TURN_SPANS); k++)
      events.push(spanNewEvent(spans[k] as Span));
  }
  deps.bus.publishBatch(events);
  deps.registrar.register(spans);
  deps.onCommitted?.(spans);
  return { stored, duplicates: spans.length - stored };
}

const TURN_SPANS = 500;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Counts the request's spans per project; a project over its spans per minute refuses the whole request (429). */
async function takeSpans(take: NonNullable<IngestDeps['takeSpans']>, spans: Span[]): Promise<void> {
  const perProject = new Map<string, number>();
  for (const s of spans) perProject.set(s.projectId, (perProject.get(s.projectId) ?? 0) + 1);
  for (const [project, n] of perProject) {
    const res = await take(project, n);
    if (!res.ok) {
      throw new SpyglassError(
        'rate_limited',
        `Rate limit exceeded: ${res.limit} spans per 1 minute for project ${JSON.stringify(project.slice(0, 128))}`,
        { retryAfter: res.retryAfterSeconds },
      );
    }
  }
}

function redact(s: Span): void {
  s.inputArgs = null;
  s.outputResult = null;
  s.llmInput = null;
  s.llmOutput = null;
}
