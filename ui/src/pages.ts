import type { ComponentType } from 'preact';
import { Lineage } from './views/lineage/lineage.tsx';
import { Live } from './views/live/live.tsx';
import { Overview } from './views/overview/overview.tsx';
import { SessionPage } from './views/session/session.tsx';
import { Sessions } from './views/sessions/sessions.tsx';
import { Compare } from './views/compare/compare.tsx';
import { lazyPage } from './shell/lazy.tsx';

export interface PageProps {
  /** Path parameters of the matched pattern (`/sessions/:id` gives `id`). */
  params: Record<string, string>;
}

export interface Page {
  /** Path pattern: segments, `:name` for a parameter. First match wins. */
  path: string;
  /** The page's h1 and the document title. */
  title: string;
  /** Label in the navigation; pages without one (details) are reached by links. */
  nav?: string;
  /** Shown in the navigation to admins only (the server refuses others anyway). */
  admin?: boolean;
  view: ComponentType<PageProps>;
}

/**
 * Every page of the dashboard. To add one: write `views/<name>/<name>.tsx` (one h1 naming the
 * page, state in the URL through router.ts) and `views/<name>/queries.ts`, then add it here.
 * Pages of part two are lazy (`lazyPage`): their code, charts included, loads when first opened.
 */
export const PAGES: Page[] = [
  { path: '/', title: 'Overview', nav: 'Overview', view: Overview },
  { path: '/sessions', title: 'Sessions', nav: 'Sessions', view: Sessions },
  { path: '/sessions/:id', title: 'Session', view: SessionPage },
  { path: '/compare', title: 'Compare sessions', view: Compare },
  { path: '/live', title: 'Live', nav: 'Live', view: Live },
  { path: '/lineage', title: 'Lineage', nav: 'Lineage', view: Lineage },
  {
    path: '/servers',
    title: 'Servers',
    nav: 'Servers',
    view: lazyPage(() => import('./views/servers/servers.tsx'), 'servers'),
  },
  {
    path: '/servers/:name',
    title: 'Server',
    view: lazyPage(() => import('./views/server/server.tsx'), 'the server'),
  },
  {
    path: '/agents',
    title: 'Agents',
    nav: 'Agents',
    view: lazyPage(() => import('./views/agents/agents.tsx'), 'agents'),
  },
  {
    path: '/agents/:name',
    title: 'Agent',
    view: lazyPage(() => import('./views/agent/agent.tsx'), 'the agent'),
  },
  {
    path: '/alerts',
    title: 'Alerts',
    nav: 'Alerts',
    view: lazyPage(() => import('./views/alerts/alerts.tsx'), 'alerts'),
  },
  {
    path: '/slos',
    title: 'SLOs',
    nav: 'SLOs',
    view: lazyPage(() => import('./views/slos/slos.tsx'), 'SLOs'),
  },
  {
    path: '/costs',
    title: 'Costs',
    nav: 'Costs',
    view: lazyPage(() => import('./views/costs/costs.tsx'), 'costs'),
  },
  {
    path: '/anomalies',
    title: 'Anomalies',
    nav: 'Anomalies',
    view: lazyPage(() => import('./views/anomalies/anomalies.tsx'), 'anomalies'),
  },
  {
    path: '/settings',
    title: 'Settings',
    nav: 'Settings',
    admin: true,
    view: lazyPage(() => import('./views/settings/projects.tsx'), 'settings'),
  },
  {
    path: '/settings/projects',
    title: 'Projects',
    admin: true,
    view: lazyPage(() => import('./views/settings/projects.tsx'), 'projects'),
  },
  {
    path: '/settings/users',
    title: 'Users',
    admin: true,
    view: lazyPage(() => import('./views/settings/users.tsx'), 'users'),
  },
  {
    path: '/settings/keys',
    title: 'API keys',
    admin: true,
    view: lazyPage(() => import('./views/settings/keys.tsx'), 'API keys'),
  },
  {
    path: '/settings/audit',
    title: 'Audit log',
    admin: true,
    view: lazyPage(() => import('./views/settings/audit.tsx'), 'the audit log'),
  },
  {
    path: '/settings/instance',
    title: 'Instance settings',
    admin: true,
    view: lazyPage(() => import('./views/settings/instance.tsx'), 'instance settings'),
  },
];
