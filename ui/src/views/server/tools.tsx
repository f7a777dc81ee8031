import { useQuery } from '../../graphql/hooks.ts';
import { visibleEscapes } from '../../lib/json-view.ts';
import { param } from '../../router.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { TOOLS, type ToolItem, type ToolsData } from './tools-queries.ts';
import './tabs.css';

const SOURCES: Record<string, string> = {
  check: 'as the latest health check listed them',
  agent: 'as an agent last posted them (Spyglass does not reach this server itself)',
};

/**
 * The server page's tools tab: every tool of the newest tool list with its description and input
 * schema (collapsible, JSON as text). Names and descriptions come from the server and may be
 * hostile: rendered as text, invisible characters shown as escapes.
 */
export function ToolsTab({ name }: { name: string }) {
  const q = useQuery<ToolsData>(TOOLS, { name, projectId: param('project') || null });
  if (q.error) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data) return <Loading what="tools" />;
  const { tools, source, schemaHash } = q.data.serverTools;
  if (tools.length === 0)
    return (
      <p class="muted">
        No tool list yet: the server has not been checked successfully, and no agent has posted the
        tools it saw.
      </p>
    );
  return (
    <section class="server-tools" aria-labelledby="tools-h">
      <h2 id="tools-h">Tools ({tools.length})</h2>
      <p class="muted">
        {SOURCES[source] ?? source}; schema hash <code>{schemaHash}</code>.
      </p>
      <ul class="tool-list">
        {tools.map((t, i) => (
          <ToolEntry key={`${i}:${t.name}`} tool={t} />
        ))}
      </ul>
    </section>
  );
}

function ToolEntry({ tool }: { tool: ToolItem }) {
  const params = paramNames(tool.inputSchema);
  return (
    <li>
      <details>
        <summary>
          <code class="tool-name">{visibleEscapes(tool.name)}</code>{' '}
          <span class="muted">
            {params.length} parameter{params.length === 1 ? '' : 's'}
            {params.length > 0 && `: ${params.slice(0, 6).map(visibleEscapes).join(', ')}`}
            {params.length > 6 && ', …'}
          </span>
        </summary>
        {tool.title && <p>{visibleEscapes(tool.title)}</p>}
        <p class="tool-desc">
          {tool.description ? visibleEscapes(tool.description) : 'No description.'}
        </p>
        <h3>Input schema</h3>
        <pre class="schema">{json(tool.inputSchema)}</pre>
        {tool.outputSchema != null && (
          <>
            <h3>Output schema</h3>
            <pre class="schema">{json(tool.outputSchema)}</pre>
          </>
        )}
        {tool.annotations != null && (
          <>
            <h3>Annotations</h3>
            <pre class="schema">{json(tool.annotations)}</pre>
          </>
        )}
      </details>
    </li>
  );
}

function paramNames(schema: unknown): string[] {
  const props = (schema as { properties?: unknown } | null)?.properties;
  return props && typeof props === 'object' ? Object.keys(props) : [];
}

/** Pretty JSON with invisible characters escaped (they would hide text in a <pre>). */
export function json(v: unknown): string {
  return v == null ? 'none' : visibleEscapes(JSON.stringify(v, null, 2));
}
