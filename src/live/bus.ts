/**
 * In-process fan-out of live events (spec §6.1). Receivers publish; SSE and GraphQL subscriptions
 * subscribe. Listeners must not throw or block: each gets the event synchronously.
 */
export interface SpanNewEvent {
  type: 'span:new';
  data: {
    session_id: string | null;
    agent_name: string | null;
    server_name: string;
    tool_name: string;
    status: string;
    latency_ms: number;
    project_id: string;
    span_id: string;
    trace_id: string | null;
    span_type: string;
    started_at: string;
  };
}
export interface HealthCheckEvent {
  type: 'health:check';
  data: { server_name: string; status: string; latency_ms: number | null; project_id?: string };
}
export interface AlertFiredEvent {
  type: 'alert:fired';
  data: Record<string, unknown> & { project_id?: string | null };
}
/**
 * One scan run ended with critical or high findings (spec §6.2 security_critical / security_high:
 * one per scan run, not per finding). Internal: alerting subscribes; SSE does not stream it.
 */
export interface SecurityScanEvent {
  type: 'security:scan';
  data: {
    project_id: string;
    /** The servers of the run whose scans have critical or high findings. */
    servers: string[];
    critical_count: number;
    high_count: number;
    /** 'critical' or 'high'. */
    highest_severity: string;
    scanned_at: string;
  };
}
export type LiveEvent = SpanNewEvent | HealthCheckEvent | AlertFiredEvent | SecurityScanEvent;
export type Listener = (event: LiveEvent) => void;

/** An event with its place in the stream: SSE ids and Last-Event-ID replay use it. */
export interface Sequenced {
  id: number;
  event: LiveEvent;
  /** The SSE frame, built once however many clients get it. */
  sse?: string;
}

/** What a batch subscriber wants: one event type or all, one project or all. */
export interface Interest {
  type: LiveEvent['type'] | '*';
  /** null: every project. Events without a project (health, alerts) reach every subscriber. */
  projectId: string | null;
}
export type BatchListener = (items: readonly Sequenced[]) => void;

const ALL = '*';

/**
 * Subscribers are indexed by (type, project), so publishing a batch costs one pass over its events
 * to group them plus one call per interested subscriber with a shared slice: never work per
 * subscriber and span, and nothing is serialised here.
 */
export class EventBus {
  private readonly index = new Map<string, Set<BatchListener>>();
  private readonly listeners = new Set<Listener>();
  private nextId = 1;

  /** Every event, one call each (tests, low-rate consumers). Returns the unsubscribe function. */
  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Batches filtered by type and project before delivery. Returns the unsubscribe function. */
  subscribeBatches(interest: Interest, fn: BatchListener): () => void {
    const key = `${interest.type}|${interest.projectId ?? ALL}`;
    let set = this.index.get(key);
    if (!set) this.index.set(key, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.index.delete(key);
    };
  }

  publish(event: LiveEvent): void {
    this.publishBatch([event]);
  }

  publishBatch(events: readonly LiveEvent[]): void {
    if (events.length === 0) return;
    const groups = new Map<string, Sequenced[]>();
    const all: Sequenced[] = [];
    for (const event of events) {
      const item: Sequenced = { id: this.nextId++, event };
      all.push(item);
      const key = `${event.type}|${event.data.project_id ?? ALL}`;
      const group = groups.get(key);
      if (group) group.push(item);
      else groups.set(key, [item]);
    }
    for (const fn of this.listeners) for (const item of all) fn(item.event);
    if (this.index.size === 0) return;
    this.deliver(`${ALL}|${ALL}`, all);
    for (const [key, items] of groups) {
      const [type, project] = key.split('|') as [string, string];
      this.deliver(`${type}|${ALL}`, items);
      if (project === ALL) {
        // No project: every subscriber of this type (and of every type) sees it.
        for (const [k, set] of this.index) if (!k.endsWith(`|${ALL}`) && (k.startsWith(`${type}|`) || k.startsWith(`${ALL}|`))) for (const fn of set) fn(items);
      } else {
        this.deliver(key, items);
        this.deliver(`${ALL}|${project}`, items);
      }
    }
  }

  /** The id the next published event will get (SSE replay bookkeeping). */
  get lastId(): number {
    return this.nextId - 1;
  }

  private deliver(key: string, items: readonly Sequenced[]): void {
    const set = this.index.get(key);
    if (set) for (const fn of set) fn(items);
  }
}
