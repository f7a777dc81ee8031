import { call, createKey, expectStatus } from './auth.ts';
import { nativeSpan } from './spans.ts';
import { seedSpans } from './ui.ts';

/**
 * Seeding for the SLOs page test (test/ui/slos.browser.test.ts): sessions through native ingest
 * and SLOs through REST, so one SLO is met and one breached.
 */

/** Sessions of `agent` ending now: `good` tagged success, `bad` tagged tool_failure. */
export async function seedSessions(
  base: string,
  key: string,
  agent: string,
  good: number,
  bad: number,
) {
  const at = Date.now() - 5_000;
  const spans = Array.from({ length: good + bad }, (_, i) =>
    nativeSpan({
      agent_name: agent,
      session_id: `${agent}-${i}`,
      trace_id: `${agent}-${i}`,
      started_at: new Date(at - i * 1000).toISOString(),
      ended_at: new Date(at - i * 1000 + 200).toISOString(),
      latency_ms: 200,
      ...(i < bad
        ? { status: 'error', error: 'boom', output_result: null, health_tag: 'tool_failure' }
        : { health_tag: 'success' }),
    }),
  );
  await seedSpans(base, spans, key);
}

export interface SloJson {
  slo_id: string;
  agent_name: string;
  metric: string;
  threshold: number;
  window_hours: number;
}

export async function createSlo(base: string, key: string, body: Record<string, unknown>) {
  return expectStatus(await call(base, 'POST', '/api/slos', { key, body }), 201, 'create SLO')
    .json as SloJson;
}

export async function listSlos(base: string, key: string): Promise<SloJson[]> {
  return expectStatus(await call(base, 'GET', '/api/slos', { key }), 200, 'list SLOs')
    .json as SloJson[];
}

/** An admin and a viewer key (the sign-in form takes either). */
export async function keys(base: string, boot: string) {
  const admin = await createKey(base, boot, { role: 'admin', name: 'slo admin' });
  const viewer = await createKey(base, boot, { role: 'viewer', name: 'slo viewer' });
  return { admin: admin.key, viewer: viewer.key };
}
