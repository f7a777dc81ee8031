import { useMemo } from 'preact/hooks';
import { useQuery } from '../../graphql/hooks.ts';
import {
  compareSessions,
  toolCallsOf,
  type AlignedRow,
  type CompareTotals,
} from '../../lib/compare.ts';
import { href, param } from '../../router.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { formatMs } from '../sessions/sessions.tsx';
import { COMPARE, type CompareData, type CompareSpan } from './queries.ts';
import '../sessions/sessions.css';

const KIND_LABEL = {
  same: 'same call',
  replaced: 'different call',
  'only-a': 'only in A',
  'only-b': 'only in B',
} as const;

const money = (v: number | null | undefined) => (v == null ? '—' : `$${v.toFixed(4)}`);
const tokens = (c: CompareSpan) =>
  c.inputTokens == null && c.outputTokens == null
    ? null
    : (c.inputTokens ?? 0) + (c.outputTokens ?? 0);

/** A signed difference, marked worse (red) when B is higher, better (green) when lower. */
function Delta({ value, format }: { value: number | null; format: (v: number) => string }) {
  if (value === null || value === 0) return <span class="muted">—</span>;
  const worse = value > 0;
  return (
    <span class={worse ? 'diff-bad' : 'diff-good'}>
      {worse ? '+' : '−'}
      {format(Math.abs(value))}
      <span class="visually-hidden">{worse ? ' more in B' : ' less in B'}</span>
    </span>
  );
}

function Call({ c }: { c: CompareSpan | null }) {
  if (!c)
    return (
      <td colSpan={5} class="muted">
        —
      </td>
    );
  const failed = c.status !== 'success';
  return (
    <>
      <td class="mono">
        {c.agentName ? `${c.agentName} · ` : ''}
        {c.serverName}/{c.toolName}
      </td>
      <td class={failed ? 'bad' : undefined} title={c.error ?? undefined}>
        {c.status}
      </td>
      <td class="num">{formatMs(c.latencyMs)}</td>
      <td class="num">{tokens(c) ?? '—'}</td>
      <td class="num">{money(c.costUsd)}</td>
    </>
  );
}

function Row({ r, n }: { r: AlignedRow<CompareSpan>; n: number }) {
  return (
    <tr class={`cmp-${r.kind}${r.statusChanged ? ' status-changed' : ''}`}>
      <th scope="row" class="num">
        {n}
      </th>
      <td>
        {KIND_LABEL[r.kind]}
        {r.statusChanged ? ', status differs' : ''}
      </td>
      <Call c={r.a} />
      <Call c={r.b} />
      <td class="num">
        <Delta value={r.latencyDeltaMs} format={formatMs} />
      </td>
      <td class="num">
        <Delta value={r.tokensDelta} format={String} />
      </td>
      <td class="num">
        <Delta value={r.costDeltaUsd} format={(v) => `$${v.toFixed(4)}`} />
      </td>
    </tr>
  );
}

function Totals({ a, b }: { a: CompareTotals; b: CompareTotals }) {
  const line = (label: string, x: number, y: number, f: (v: number) => string) => (
    <tr>
      <th scope="row">{label}</th>
      <td class="num">{f(x)}</td>
      <td class="num">{f(y)}</td>
      <td class="num">
        <Delta value={y - x} format={f} />
      </td>
    </tr>
  );
  return (
    <table class="data cmp-totals">
      <caption>Totals</caption>
      <thead>
        <tr>
          <th scope="col">Measure</th>
          <th scope="col" class="num">
            A
          </th>
          <th scope="col" class="num">
            B
          </th>
          <th scope="col" class="num">
            B − A
          </th>
        </tr>
      </thead>
      <tbody>
        {line('Tool calls', a.calls, b.calls, String)}
        {line('Failures', a.failures, b.failures, String)}
        {line('Latency (sum)', a.latencyMs, b.latencyMs, formatMs)}
        {line('Tokens', a.tokens, b.tokens, String)}
        {line('Cost', a.costUsd, b.costUsd, (v) => `$${v.toFixed(4)}`)}
      </tbody>
    </table>
  );
}

/** Two sessions side by side (`/compare?a=…&b=…`): their tool calls aligned, differences marked. */
export function Compare() {
  const a = param('a');
  const b = param('b');
  const project = param('project');
  const vars = useMemo(() => ({ a, b, projectId: project || null }), [a, b, project]);
  const q = useQuery<CompareData>(COMPARE, vars, { pause: !a || !b });
  const cmp = useMemo(
    () =>
      q.data &&
      compareSessions(
        toolCallsOf(q.data.a.tree.map((n) => n.span)),
        toolCallsOf(q.data.b.tree.map((n) => n.span)),
      ),
    [q.data],
  );
  if (!a || !b)
    return (
      <p>
        Choose two sessions on the <a href={href('/sessions', { project })}>sessions list</a> and
        press Compare.
      </p>
    );
  if (q.error) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data || !cmp) return <Loading what="both sessions" />;
  const link = (id: string) => href(`/sessions/${encodeURIComponent(id)}`, { project });
  const differing = cmp.rows.filter((r) => r.kind !== 'same' || r.statusChanged).length;
  return (
    <div class="compare">
      <p>
        <strong>A</strong>: <a href={link(a)}>{a}</a> ({q.data.a.session.healthTag}) ·{' '}
        <strong>B</strong>: <a href={link(b)}>{b}</a> ({q.data.b.session.healthTag}) ·{' '}
        <a href={href('/compare', { project, a: b, b: a })}>swap</a>
      </p>
      <p role="status">
        {cmp.rows.length} aligned calls, {differing} differ in call or status.
        {q.data.a.truncated || q.data.b.truncated
          ? ' A session is truncated to its first spans.'
          : ''}
      </p>
      <Totals a={cmp.totals.a} b={cmp.totals.b} />
      <div class="table-scroll" tabIndex={0} aria-label="Aligned tool calls, scrollable">
        <table class="data cmp-rows">
          <caption>Tool calls aligned by agent, server and tool</caption>
          <thead>
            <tr>
              <th scope="col" class="num">
                #
              </th>
              <th scope="col">Alignment</th>
              <th scope="col">A call</th>
              <th scope="col">A status</th>
              <th scope="col" class="num">
                A latency
              </th>
              <th scope="col" class="num">
                A tokens
              </th>
              <th scope="col" class="num">
                A cost
              </th>
              <th scope="col">B call</th>
              <th scope="col">B status</th>
              <th scope="col" class="num">
                B latency
              </th>
              <th scope="col" class="num">
                B tokens
              </th>
              <th scope="col" class="num">
                B cost
              </th>
              <th scope="col" class="num">
                Δ latency
              </th>
              <th scope="col" class="num">
                Δ tokens
              </th>
              <th scope="col" class="num">
                Δ cost
              </th>
            </tr>
          </thead>
          <tbody>
            {cmp.rows.map((r, i) => (
              <Row key={i} r={r} n={i + 1} />
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
