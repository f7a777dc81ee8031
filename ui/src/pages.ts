import type { ComponentType } from 'preact';
import { Lineage } from './views/lineage/lineage.tsx';
import { Live } from './views/live/live.tsx';
import { Overview } from './views/overview/overview.tsx';
import { Placeholder } from './views/placeholder.tsx';
import { SessionPage } from './views/session/session.tsx';
import { Sessions } from './views/sessions/sessions.tsx';
import { Compare } from './views/compare/compare.tsx';

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
  view: ComponentType<PageProps>;
}

/**
 * Every page of the dashboard. To add one: write `views/<name>/<name>.tsx` (one h1 naming the
 * page, state in the URL through router.ts) and `views/<name>/queries.ts`, then add it here.
 */
export const PAGES: Page[] = [
  { path: '/', title: 'Overview', nav: 'Overview', view: Overview },
  { path: '/sessions', title: 'Sessions', nav: 'Sessions', view: Sessions },
  { path: '/sessions/:id', title: 'Session', view: SessionPage },
  { path: '/compare', title: 'Compare sessions', view: Compare },
  { path: '/live', title: 'Live', nav: 'Live', view: Live },
  { path: '/lineage', title: 'Lineage', nav: 'Lineage', view: Lineage },
  { path: '/servers', title: 'Servers', nav: 'Servers', view: Placeholder },
  { path: '/alerts', title: 'Alerts', nav: 'Alerts', view: Placeholder },
  { path: '/slos', title: 'SLOs', nav: 'SLOs', view: Placeholder },
  { path: '/costs', title: 'Costs', nav: 'Costs', view: Placeholder },
];
