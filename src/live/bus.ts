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
export type LiveEvent = SpanNewEvent | HealthCheckEvent | AlertFiredEvent;
export type Listener = (event: LiveEvent) => void;

export class EventBus {
  private listeners = new Set<Listener>();

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  publish(event: LiveEvent): void {
    for (const fn of this.listeners) fn(event);
  }
}
