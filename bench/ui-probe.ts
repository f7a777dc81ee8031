/**
 * What the UI bench installs in every page before the app's scripts (Playwright's init script runs
 * through the DevTools protocol, outside the page's CSP): the Chromium performance timeline
 * (long tasks, paints, largest contentful paint, GraphQL answers' resource timing), and when
 * a watched selector first showed (the frame after the DOM change).
 */
export const WATCH = {
  overview: '.tile',
  tree: '[role="treeitem"]',
} as const;

export interface PagePerf {
  longtasks: [start: number, duration: number][];
  paints: Record<string, number>;
  lcp: number;
  /** When each /graphql answer's body had arrived (Resource Timing responseEnd). */
  gql: number[];
  firstSeen: Partial<Record<keyof typeof WATCH, number>>;
}

export const PROBE_SCRIPT = `(() => {
  const perf = { longtasks: [], paints: {}, lcp: 0, gql: [], firstSeen: {} };
  window.__perf = perf;
  const observe = (type, fn) => {
    try { new PerformanceObserver((l) => l.getEntries().forEach(fn)).observe({ type, buffered: true }); } catch {}
  };
  observe('longtask', (e) => perf.longtasks.push([e.startTime, e.duration]));
  observe('paint', (e) => { perf.paints[e.name] = e.startTime; });
  observe('largest-contentful-paint', (e) => { perf.lcp = e.startTime; });
  observe('resource', (e) => { if (e.name.includes('/graphql')) perf.gql.push(e.responseEnd); });
  const watch = ${JSON.stringify(WATCH)};
  new MutationObserver(() => {
    for (const [name, sel] of Object.entries(watch))
      if (!(name in perf.firstSeen) && document.querySelector(sel)) {
        perf.firstSeen[name] = -1;
        requestAnimationFrame(() => { perf.firstSeen[name] = performance.now(); });
      }
  }).observe(document, { subtree: true, childList: true });
})();`;
