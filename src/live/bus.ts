import type { LiveEvent } from '../model/live-event.ts';

export type {
  AlertFiredEvent,
  HealthCheckEvent,
  LiveEvent,
  SecurityScanEvent,
  SpanNewEvent,
} from '../model/live-event.ts';

/*
 * In-process fan-out of live events. Services publish domain events (src/model/live-event.ts:
 * camelCase, `Date`); subscribers translate what they need: the SSE hub to docs/api.md#live-events-sse's
 * JSON, GraphQL subscriptions to their fields, the Redis relay to its JSON. Listeners must not throw
 * or block: each gets the event synchronously, and must not change it.
 */
export type Listener = (event: LiveEvent) => void;

/** An event with its place in the stream: SSE ids and Last-Event-ID replay use it. */
export interface Sequenced {
  /**
   * Increasing across the process, or across the cluster with a relay. null: an event delivered
   * only here while the relay is unavailable; SSE sends it without an id, so clients keep theirs.
   */
  id: number | null;
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

/** Cluster-wide delivery (src/scale/coord/live-relay.ts): the events come back through `deliver` with cluster ids. */
export interface Relay {
  /** Takes the events, or answers false when it cannot now: they are then delivered here only. */
  send(events: readonly LiveEvent[]): boolean;
}

/** What live clients see (docs/api.md#live-events-sse); other events (security:scan) are internal and stay in the process. */
export const RELAYED_TYPES: ReadonlySet<LiveEvent['type']> = new Set<LiveEvent['type']>([
  'span:new',
  'health:check',
  'alert:fired',
]);

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
  private relay: Relay | null = null;

  /**
   * With a relay, the live event types reach batch subscribers through the relay (on every
   * instance, with cluster ids) instead of directly.
   */
  useRelay(relay: Relay | null): void {
    this.relay = relay;
  }

  /** Every event published in this process, one call each (tests, low-rate consumers). Returns the unsubscribe function. */
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
    for (const fn of this.listeners) for (const event of events) fn(event);
    const relay = this.relay;
    if (!relay) return this.deliver(events.map((event) => ({ id: this.nextId++, event })));
    if (events.every((e) => RELAYED_TYPES.has(e.type))) {
      if (!relay.send(events)) this.deliver(events.map(unsequenced));
      return;
    }
    const relayed = events.filter((e) => RELAYED_TYPES.has(e.type));
    const local = events.filter((e) => !RELAYED_TYPES.has(e.type));
    if (relayed.length > 0 && !relay.send(relayed)) local.unshift(...relayed);
    this.deliver(local.map(unsequenced));
  }

  /**
   * Hands sequenced events to the batch subscribers (the relay calls it with the cluster's events,
   * in stream order). Costs one pass to group them plus one call per interested subscriber.
   */
  deliver(all: readonly Sequenced[]): void {
    if (all.length === 0) return;
    const last = all.at(-1)?.id;
    if (typeof last === 'number' && last >= this.nextId) this.nextId = last + 1;
    if (this.index.size === 0) return;
    this.deliverTo(`${ALL}|${ALL}`, all);
    for (const [type, byProject] of groupByTypeAndProject(all)) {
      for (const [project, items] of byProject) {
        this.deliverTo(`${type}|${ALL}`, items);
        if (project === ALL) {
          // No project: every subscriber of this type (and of every type) sees it.
          for (const [k, set] of this.index)
            if (!k.endsWith(`|${ALL}`) && (k.startsWith(`${type}|`) || k.startsWith(`${ALL}|`)))
              for (const fn of set) fn(items);
        } else {
          this.deliverTo(`${type}|${project}`, items);
          this.deliverTo(`${ALL}|${project}`, items);
        }
      }
    }
  }

  /** The highest id given or seen (SSE replay bookkeeping; the relay's floor after a Redis restart). */
  get lastId(): number {
    return this.nextId - 1;
  }

  private deliverTo(key: string, items: readonly Sequenced[]): void {
    const set = this.index.get(key);
    if (set) for (const fn of set) fn(items);
  }
}

/** Events by type and project (ALL for none), in stream order; nothing is allocated per event. */
function groupByTypeAndProject(all: readonly Sequenced[]): Map<string, Map<string, Sequenced[]>> {
  const groups = new Map<string, Map<string, Sequenced[]>>();
  for (const item of all) {
    const project = item.event.data.projectId ?? ALL;
    let byProject = groups.get(item.event.type);
    if (!byProject) groups.set(item.event.type, (byProject = new Map()));
    const items = byProject.get(project);
    if (items) items.push(item);
    else byProject.set(project, [item]);
  }
  return groups;
}

function unsequenced(event: LiveEvent): Sequenced {
  return { id: null, event };
}
