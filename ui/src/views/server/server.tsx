import type { PageProps } from '../../pages.ts';
import { param, setParams } from '../../router.ts';
import { DriftTab } from './drift.tsx';
import { ImpactTab } from './impact.tsx';
import { SecurityTab } from './security.tsx';
import { ToolsTab } from './tools.tsx';

const TABS = [
  ['health', 'Health'],
  ['drift', 'Drift'],
  ['tools', 'Tools'],
  ['security', 'Security'],
  ['impact', 'Impact'],
] as const;
type Tab = (typeof TABS)[number][0];

/**
 * One server (`/servers/:name?tab=…`): health (status and latency history, scorecard, catalog
 * entry), drift, tools, security findings and impact, one tab each, the tab in the URL.
 */
export default function Server({ params }: PageProps) {
  const name = params.name ?? '';
  const tab = (TABS.find(([t]) => t === param('tab'))?.[0] ?? 'health') as Tab;
  return (
    <>
      <h2 class="server-name">{name}</h2>
      <div role="tablist" aria-label="Server views">
        {TABS.map(([t, label]) => (
          <button
            key={t}
            role="tab"
            id={`tab-${t}`}
            aria-selected={t === tab}
            aria-controls="server-tab"
            onClick={() => setParams({ tab: t === 'health' ? null : t }, { push: true })}
          >
            {label}
          </button>
        ))}
      </div>
      <section role="tabpanel" id="server-tab" aria-labelledby={`tab-${tab}`}>
        {tab === 'health' && <p class="muted">Not built yet: {name}</p>}
        {tab === 'drift' && <DriftTab name={name} />}
        {tab === 'tools' && <ToolsTab name={name} />}
        {tab === 'security' && <SecurityTab name={name} />}
        {tab === 'impact' && <ImpactTab name={name} />}
      </section>
    </>
  );
}
