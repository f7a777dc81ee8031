import type { ComponentChildren } from 'preact';
import type { ReadableError } from '../graphql/client.ts';

/** The readable error state: what failed (the server's message and code) and what to do. */
export function ErrorState({ error, retry }: { error: ReadableError; retry?: () => void }) {
  return (
    <section class="error-state" role="alert">
      <h2>Could not load this view</h2>
      <p>
        {error.message} <code>{error.code}</code>
      </p>
      <p>{error.hint}</p>
      {retry && <button onClick={retry}>Retry</button>}
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" aria-busy="true">
      Loading {what}…
    </p>
  );
}

/** How to send the first span to this server (native JSON, curl, OpenTelemetry), with its address. */
export function FirstSpan({ children }: { children?: ComponentChildren }) {
  const base = window.location.origin;
  const now = new Date().toISOString();
  const curl = `curl -X POST ${base}/api/traces/spans \\
  -H 'Content-Type: application/json' -H 'X-API-Key: $SPYGLASS_API_KEY' \\
  -d '[{"span_id":"s1","trace_id":"t1","session_id":"first-session","agent_name":"my-agent",
       "server_name":"my-server","tool_name":"search","started_at":"${now}","ended_at":"${now}",
       "latency_ms":12,"status":"success"}]'`;
  const otel = `OTEL_EXPORTER_OTLP_ENDPOINT=${base}
OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf
OTEL_EXPORTER_OTLP_HEADERS=X-API-Key=$SPYGLASS_API_KEY`;
  return (
    <section aria-labelledby="first-span">
      <h2 id="first-span">Send your first span</h2>
      {children}
      <p>With curl (leave out the key header while the server runs without keys):</p>
      <pre>{curl}</pre>
      <p>From an OpenTelemetry SDK, set these variables in the agent's environment:</p>
      <pre>{otel}</pre>
      <p>
        Or use the Python or TypeScript SDK; see <code>docs/ingest.md</code>.
      </p>
    </section>
  );
}
