import { visibleEscapes } from '../../lib/json-view.ts';
import { diffToolLists, type ParamRow, type ToolDiff } from '../../lib/schema-diff.ts';
import { Time } from '../../shell/time.tsx';
import type { DriftEventItem } from './drift-queries.ts';

const v = (s: string | null | undefined) => (s == null ? '' : visibleEscapes(s));

/** One drift event: when and how it was seen, the classified changes, the schema diff per tool. */
export function DriftEventView({ event: e }: { event: DriftEventItem }) {
  const diff =
    e.previousTools && e.currentTools ? diffToolLists(e.previousTools, e.currentTools) : null;
  return (
    <article class="drift-event" aria-labelledby={`drift-${e.id}`}>
      <h3 id={`drift-${e.id}`}>
        <span class={`cls cls-${e.classification.toLowerCase()}`}>{e.classification}</span>{' '}
        <Time value={e.detectedAt} />
      </h3>
      <p class="muted">
        Seen by{' '}
        {e.observedBy === 'agent' ? `agent ${v(e.agentName) || '(unnamed)'}` : 'a health check'};
        schema <code>{e.previousHash.slice(0, 12)}</code> →{' '}
        <code>{e.currentHash.slice(0, 12)}</code>
      </p>
      <table class="data drift-changes">
        <caption>Classified changes</caption>
        <thead>
          <tr>
            <th scope="col">Class</th>
            <th scope="col">Change</th>
            <th scope="col">Tool</th>
            <th scope="col">Parameter</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {e.changes.map((c, i) => (
            <tr key={i}>
              <td>
                <span class={`cls cls-${c.classification.toLowerCase()}`}>{c.classification}</span>
              </td>
              <td>{c.changeType.replace(/_/g, ' ')}</td>
              <td>
                <code>{v(c.toolName)}</code>
              </td>
              <td>
                <code>{v(c.paramName)}</code>
                {c.paramType && <span class="muted"> ({v(c.paramType)})</span>}
              </td>
              <td>{v(c.detail)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {diff ? (
        diff.map((t) => <ToolDiffView key={t.name} tool={t} />)
      ) : (
        <p class="muted">
          The tool lists of this change were removed by retention; only the classified changes
          remain.
        </p>
      )}
    </article>
  );
}

const MARK: Record<string, string> = { added: '+', removed: '−', changed: '~', same: ' ' };

function ToolDiffView({ tool: t }: { tool: ToolDiff }) {
  const changed = t.params.filter((p) => p.status !== 'same');
  const same = t.params.length - changed.length;
  return (
    <section class="tool-diff" aria-label={`Schema diff of tool ${v(t.name)}`}>
      <h4>
        <span class={`st st-${t.status}`}>{t.status}</span> tool <code>{v(t.name)}</code>
      </h4>
      {t.description && (
        <dl class="desc-diff">
          <dt>Description before</dt>
          <dd>
            <del>{v(t.description.before) || '(none)'}</del>
          </dd>
          <dt>Description after</dt>
          <dd>
            <ins>{v(t.description.after) || '(none)'}</ins>
          </dd>
        </dl>
      )}
      {changed.length > 0 && (
        <table class="data param-diff">
          <caption>Parameters{same > 0 ? ` (${same} unchanged not shown)` : ''}</caption>
          <thead>
            <tr>
              <th scope="col">Parameter</th>
              <th scope="col">Change</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {changed.map((p) => (
              <ParamDiffRow key={p.path} row={p} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ParamDiffRow({ row: p }: { row: ParamRow }) {
  return (
    <tr class={`param-${p.status}`}>
      <th scope="row">
        <code>{v(p.path)}</code>
      </th>
      <td>
        <span aria-hidden="true" class="mark">
          {MARK[p.status]}
        </span>{' '}
        {p.status}
      </td>
      <td>{p.before !== null && <del>{v(p.before)}</del>}</td>
      <td>{p.after !== null && <ins>{v(p.after)}</ins>}</td>
    </tr>
  );
}
