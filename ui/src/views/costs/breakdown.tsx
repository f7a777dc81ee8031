import { useMemo } from 'preact/hooks';
import { TimeChart } from '../../charts/time-chart.tsx';
import { href } from '../../router.ts';
import { viewer } from '../../shell/session.ts';
import { Time } from '../../shell/time.tsx';
import type { AgentCost, CostsData, ModelCost, ToolCost } from './queries.ts';
import { ShareTable, usd, type Column } from './share-table.tsx';

/** The explanation every "estimated" mark points to (docs/costs.md#how-a-span-is-priced). */
export function EstimatedNote() {
  return (
    <p class="estimated-note" id="estimated-note">
      <span class="tag estimated">estimated</span> The model has no price in the price book, so its
      calls were priced at the unknown-model price of 10 USD (input) and 30 USD (output) per 1M
      tokens. Add the model's price below: spans stored from then on get it (stored costs are never
      rewritten).
    </p>
  );
}

function Estimated() {
  return (
    <span class="tag estimated" aria-describedby="estimated-note">
      estimated
    </span>
  );
}

/** The breakdown of one window: totals, cost per hour, and the shares by model, agent and tool. */
export function Breakdown({ data, project }: { data: CostsData; project: string }) {
  const b = data.costBreakdown;
  const points = data.costSeries.points;
  const anyEstimated = b.byModel.some((m) => m.estimated);
  const chart = useMemo(
    () => ({
      x: points.map((p) => new Date(p.at).getTime()),
      series: [
        { label: 'LLM', values: points.map((p) => p.llmCostUsd), unit: '$' },
        { label: 'Tools', values: points.map((p) => p.toolCostUsd), color: '--warn', unit: '$' },
      ],
    }),
    [points],
  );
  const link = (path: string) => href(path, { project });
  const models: Column<ModelCost>[] = [
    {
      key: 'model',
      label: 'Model',
      value: (m) => m.modelId,
      render: (m) => (
        <>
          <span class="mono">{m.modelId || '(no model id)'}</span> {m.estimated && <Estimated />}
        </>
      ),
    },
    { key: 'calls', label: 'Calls', value: (m) => m.calls, num: true },
    {
      key: 'input',
      label: 'Input tokens',
      value: (m) => m.inputTokens,
      render: (m) => m.inputTokens.toLocaleString(),
      num: true,
    },
    {
      key: 'output',
      label: 'Output tokens',
      value: (m) => m.outputTokens,
      render: (m) => m.outputTokens.toLocaleString(),
      num: true,
    },
    {
      key: 'cost',
      label: 'Cost',
      value: (m) => m.costUsd,
      render: (m) => usd(m.costUsd),
      num: true,
    },
  ];
  const agents: Column<AgentCost>[] = [
    {
      key: 'agent',
      label: 'Agent',
      value: (a) => a.agentName,
      render: (a) =>
        a.agentName ? (
          <a href={link(`/agents/${encodeURIComponent(a.agentName)}`)}>{a.agentName}</a>
        ) : (
          <span class="muted">(no agent)</span>
        ),
    },
    {
      key: 'llm',
      label: 'LLM',
      value: (a) => a.llmCostUsd,
      render: (a) => usd(a.llmCostUsd),
      num: true,
    },
    {
      key: 'tools',
      label: 'Tools',
      value: (a) => a.toolCostUsd,
      render: (a) => usd(a.toolCostUsd),
      num: true,
    },
    {
      key: 'cost',
      label: 'Cost',
      value: (a) => a.costUsd,
      render: (a) => usd(a.costUsd),
      num: true,
    },
  ];
  const tools: Column<ToolCost>[] = [
    {
      key: 'tool',
      label: 'Tool',
      value: (t) => t.toolName,
      render: (t) => <span class="mono">{t.toolName}</span>,
    },
    {
      key: 'server',
      label: 'Server',
      value: (t) => t.serverName,
      render: (t) => (
        <a href={link(`/servers/${encodeURIComponent(t.serverName)}`)}>{t.serverName}</a>
      ),
    },
    { key: 'calls', label: 'Calls', value: (t) => t.calls, num: true },
    {
      key: 'cost',
      label: 'Cost',
      value: (t) => t.costUsd,
      render: (t) => usd(t.costUsd),
      num: true,
    },
  ];
  return (
    <>
      <section aria-labelledby="costs-total" class="costs-summary">
        <h2 id="costs-total">Total</h2>
        <p>
          Project <span class="mono">{project || viewer.value?.projectId || 'default'}</span>,{' '}
          <Time value={b.since} /> to <Time value={b.until} /> (whole hours). Costs are per project:
          with all projects chosen, the default project is shown.
        </p>
        <dl class="costs-totals" data-testid="totals">
          <div>
            <dt>Total</dt>
            <dd data-testid="total">{usd(b.totalCostUsd)}</dd>
          </div>
          <div>
            <dt>LLM</dt>
            <dd>
              {usd(b.llmCostUsd)} {anyEstimated && <Estimated />}
            </dd>
          </div>
          <div>
            <dt>Tools</dt>
            <dd>{usd(b.toolCostUsd)}</dd>
          </div>
        </dl>
        {anyEstimated && <EstimatedNote />}
      </section>
      <section aria-labelledby="costs-chart">
        <h2 id="costs-chart">Cost per hour</h2>
        <TimeChart
          x={chart.x}
          series={chart.series}
          label="Cost per hour in USD, LLM and tools"
          bars
        />
        <details>
          <summary>Cost per hour as a table (hours with spend)</summary>
          <table class="data">
            <caption class="visually-hidden">Cost per hour</caption>
            <thead>
              <tr>
                <th scope="col">Hour</th>
                <th scope="col" class="num">
                  LLM
                </th>
                <th scope="col" class="num">
                  Tools
                </th>
                <th scope="col" class="num">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {points
                .filter((p) => p.costUsd > 0)
                .map((p) => (
                  <tr key={p.at}>
                    <th scope="row">
                      <Time value={p.at} />
                    </th>
                    <td class="num">{usd(p.llmCostUsd)}</td>
                    <td class="num">{usd(p.toolCostUsd)}</td>
                    <td class="num">{usd(p.costUsd)}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </details>
      </section>
      <section aria-labelledby="costs-models">
        <h2 id="costs-models">By model</h2>
        <ShareTable
          id="models"
          caption="Cost by model"
          rows={b.byModel}
          columns={models}
          rowKey={(m) => m.modelId}
          share={(m) => m.costUsd}
          total={b.llmCostUsd}
          empty="No LLM calls in this window."
        />
      </section>
      <section aria-labelledby="costs-agents">
        <h2 id="costs-agents">By agent</h2>
        <ShareTable
          id="agents"
          caption="Cost by agent"
          rows={b.byAgent}
          columns={agents}
          rowKey={(a) => a.agentName}
          share={(a) => a.costUsd}
          total={b.totalCostUsd}
          empty="No spans in this window."
        />
      </section>
      <section aria-labelledby="costs-tools">
        <h2 id="costs-tools">By tool</h2>
        <ShareTable
          id="tools"
          caption="Cost by tool"
          rows={b.byTool}
          columns={tools}
          rowKey={(t) => `${t.serverName}\u0000${t.toolName}`}
          share={(t) => t.costUsd}
          total={b.toolCostUsd}
          empty="No tool calls in this window."
        />
      </section>
    </>
  );
}
