import { useEffect, useMemo, useState } from 'preact/hooks';
import { useQuery } from '../../graphql/hooks.ts';
import {
  prepareJson,
  shouldPrepareInWorker,
  visibleEscapes,
  type JsonView,
} from '../../lib/json-view.ts';
import { guardOutcome } from '../../lib/span-rows.ts';
import { callWorker } from '../../lib/worker-rpc.ts';
import { href, param } from '../../router.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { SPAN, type SpanDetailData } from './queries.ts';

let worker: Worker | undefined;
/** One shared worker formats large payloads off the main thread (json-view.worker.ts). */
function jsonWorker(): Worker {
  worker ??= new Worker(new URL('../../lib/json-view.worker.ts', import.meta.url), {
    type: 'module',
  });
  return worker;
}

/**
 * A payload: pretty JSON up to 1 MB, above it a preview and a download of the whole value. Text
 * goes through visibleEscapes and is rendered as text (Preact escapes it), never as HTML.
 */
function Payload({ name, value }: { name: string; value: unknown }) {
  const big = shouldPrepareInWorker(value);
  const [view, setView] = useState<JsonView | null>(() => (big ? null : prepareJson(value)));
  useEffect(() => {
    if (!big) return setView(prepareJson(value));
    let live = true;
    setView(null);
    void callWorker<{ value: unknown }, JsonView>(jsonWorker(), { value }).then((v) => {
      if (live) setView(v);
    });
    return () => {
      live = false;
    };
  }, [value, big]);
  const download = useMemo(() => {
    if (!view?.truncated) return null;
    const raw = typeof value === 'string' ? value : JSON.stringify(value);
    return URL.createObjectURL(new Blob([raw], { type: 'application/octet-stream' }));
  }, [view?.truncated, value]);
  useEffect(() => () => void (download && URL.revokeObjectURL(download)), [download]);
  return (
    <section class="payload" aria-label={name}>
      <h3>
        {name}{' '}
        {view && (
          <span class="muted">
            ({view.bytes.toLocaleString()} bytes{view.kind === 'text' ? ', text' : ''})
          </span>
        )}
      </h3>
      {!view ? (
        <Loading what={name} />
      ) : (
        <>
          {view.truncated && (
            <p>
              Too large to format: the first {Math.round(view.text.length / 1024)} KB below.{' '}
              {download && (
                <a href={download} download={`${name.replace(/\W+/g, '-')}.txt`}>
                  Download all
                </a>
              )}
            </p>
          )}
          <pre class="json" tabIndex={0}>
            {visibleEscapes(view.text)}
          </pre>
        </>
      )}
    </section>
  );
}

/** The selected span's fields and payloads, loaded on selection (`span(spanId)`). */
export function SpanPanel({
  projectId,
  spanId,
  onClose,
}: {
  projectId: string | null;
  spanId: string;
  onClose(): void;
}) {
  const q = useQuery<SpanDetailData>(SPAN, { projectId, spanId });
  const s = q.data?.span;
  const fields: [string, string | null | undefined][] = s
    ? [
        ['Status', s.status],
        ['Guard', guardOutcome(s)],
        ['Type', s.spanType],
        ['Tool', s.toolName],
        ['Server', s.serverName],
        ['Agent', s.agentName],
        ['Hands off to', s.targetAgentName],
        ['Latency', `${s.latencyMs} ms`],
        ['Model', s.modelId],
        [
          'Tokens in / out',
          s.inputTokens != null || s.outputTokens != null
            ? `${s.inputTokens ?? 0} / ${s.outputTokens ?? 0}`
            : null,
        ],
        ['Finish reason', s.finishReason],
        ['Health tag', s.healthTag],
        ['Span id', s.spanId],
        ['Parent', s.parentSpanId],
        ['Trace', s.traceId],
      ]
    : [];
  return (
    <aside class="span-panel" aria-label="Selected span">
      <div class="panel-head">
        <h2>{s ? visibleEscapes(s.toolName) : 'Span'}</h2>
        <button type="button" onClick={onClose} aria-label="Close the span panel">
          ×
        </button>
      </div>
      {q.error ? (
        <ErrorState error={q.error} retry={q.refetch} />
      ) : !s || s.spanId !== spanId ? (
        <Loading what="the span" />
      ) : (
        <>
          <dl class="fields">
            {fields
              .filter(([, v]) => v != null && v !== '')
              .map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{visibleEscapes(String(v))}</dd>
                </div>
              ))}
            <div>
              <dt>Started</dt>
              <dd>
                <Time value={s.startedAt} />
              </dd>
            </div>
          </dl>
          <SpanLinks span={s} />
          {s.error && (
            <section class="payload" aria-label="Error">
              <h3>Error</h3>
              <pre class="json bad-text">{visibleEscapes(s.error)}</pre>
            </section>
          )}
          {s.inputArgs != null && <Payload name="Input arguments" value={s.inputArgs} />}
          {s.outputResult != null && <Payload name="Output" value={s.outputResult} />}
          {s.llmInput != null && <Payload name="LLM input" value={s.llmInput} />}
          {s.llmOutput != null && <Payload name="LLM output" value={s.llmOutput} />}
        </>
      )}
    </aside>
  );
}

/**
 * From a call to what may explain it, one click each (docs/ui.md#session): the server's page, its
 * drift and its security findings, and the agent's page.
 */
function SpanLinks({
  span,
}: {
  span: { spanType: string; serverName: string; agentName: string | null };
}) {
  const project = param('project');
  const server = `/servers/${encodeURIComponent(span.serverName)}`;
  const isCall = span.spanType === 'tool_call';
  return (
    <nav class="span-links" aria-label="Related pages">
      {isCall && (
        <>
          <a href={href(server, { project })}>Server {visibleEscapes(span.serverName)}</a>
          <a href={href(server, { project, tab: 'drift' })}>Its drift</a>
          <a href={href(server, { project, tab: 'security' })}>Its security findings</a>
        </>
      )}
      {span.agentName && (
        <a href={href(`/agents/${encodeURIComponent(span.agentName)}`, { project })}>
          Agent {visibleEscapes(span.agentName)}
        </a>
      )}
    </nav>
  );
}
