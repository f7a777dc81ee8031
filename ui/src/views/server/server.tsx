import { useRef } from 'preact/hooks';
import type { PageProps } from '../../pages.ts';
import { param, setParams } from '../../router.ts';
import { DriftTab } from './drift.tsx';
import { HealthTab } from './health.tsx';
import { ImpactTab } from './impact.tsx';
import { SecurityTab } from './security.tsx';
import { ToolsTab } from './tools.tsx';
import './server.css';

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
  const project = param('project');
  const tab = (TABS.find(([t]) => t === param('tab'))?.[0] ?? 'health') as Tab;
  const list = useRef<HTMLDivElement>(null);
  const select = (t: Tab, focus = false) => {
    setParams({ tab: t === 'health' ? null : t }, { push: true });
    if (focus) list.current?.querySelector<HTMLElement>(`#tab-${t}`)?.focus();
  };
  // WAI-ARIA tabs: one tab stop; arrows, Home and End move between tabs and open them.
  const onKey = (e: KeyboardEvent) => {
    const i = TABS.findIndex(([t]) => t === tab);
    const to =
      e.key === 'ArrowRight'
        ? (i + 1) % TABS.length
        : e.key === 'ArrowLeft'
          ? (i - 1 + TABS.length) % TABS.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? TABS.length - 1
              : -1;
    if (to < 0) return;
    e.preventDefault();
    select(TABS[to]![0], true);
  };
  return (
    <>
      <h2 class="server-name">{name}</h2>
      <div
        role="tablist"
        aria-label="Server views"
        class="server-tabs"
        ref={list}
        onKeyDown={onKey}
      >
        {TABS.map(([t, label]) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`tab-${t}`}
            aria-selected={t === tab}
            aria-controls="server-tab"
            tabIndex={t === tab ? 0 : -1}
            onClick={() => select(t)}
          >
            {label}
          </button>
        ))}
      </div>
      <section role="tabpanel" id="server-tab" aria-labelledby={`tab-${tab}`} class="server-panel">
        {tab === 'health' && <HealthTab name={name} project={project} />}
        {tab === 'drift' && <DriftTab name={name} />}
        {tab === 'tools' && <ToolsTab name={name} />}
        {tab === 'security' && <SecurityTab name={name} />}
        {tab === 'impact' && <ImpactTab name={name} />}
      </section>
    </>
  );
}
