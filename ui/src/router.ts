import { computed, signal } from '@preact/signals';

/**
 * The client router. All view state lives in the URL: the path picks the page, the query string
 * holds filters, time range, selection and tab, so any screen can be shared by its address.
 * `location` is the one source of truth; views read it through `param()` / `params` and change
 * it with `navigate()` or `setParams()`.
 */
export interface Location {
  path: string;
  query: URLSearchParams;
}

function read(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

export const location = signal<Location>(read());

window.addEventListener('popstate', () => {
  location.value = read();
});

/** Goes to `href` (same origin), pushing a history entry unless `replace`. */
export function navigate(href: string, opts: { replace?: boolean } = {}): void {
  const url = new URL(href, window.location.href);
  if (url.origin !== window.location.origin) return;
  const target = url.pathname + url.search + url.hash;
  if (opts.replace) window.history.replaceState(null, '', target);
  else window.history.pushState(null, '', target);
  location.value = read();
  if (!opts.replace) window.scrollTo(0, 0);
}

/** One query parameter of the current URL, or `fallback`. */
export function param(name: string, fallback = ''): string {
  return location.value.query.get(name) ?? fallback;
}

/**
 * Changes query parameters of the current page (null or '' removes one). Filters replace the
 * history entry by default so Back leaves the page instead of undoing each keystroke.
 */
export function setParams(
  changes: Record<string, string | number | null | undefined>,
  opts: { push?: boolean } = {},
): void {
  const q = new URLSearchParams(location.value.query);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === undefined || v === '') q.delete(k);
    else q.set(k, String(v));
  }
  const s = q.toString();
  navigate(location.value.path + (s ? `?${s}` : ''), { replace: !opts.push });
}

/** An href for `path` with query parameters (empty values left out). */
export function href(
  path: string,
  query: Record<string, string | number | null | undefined> = {},
): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export interface Match {
  /** Path parameters: `/sessions/:id` matched against `/sessions/abc` gives `{ id: 'abc' }`. */
  params: Record<string, string>;
}

/** Matches `pattern` (segments, `:name` for a parameter) against `path`; null when it does not. */
export function matchPath(pattern: string, path: string): Match | null {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith(':')) params[w.slice(1)] = decodeURIComponent(g);
    else if (w !== g) return null;
  }
  return { params };
}

/** The current path, for views that only need to know which page is open. */
export const path = computed(() => location.value.path);

/** Same-origin link clicks become navigate() calls; modified clicks open tabs as usual. */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey)
      return;
    const a = (e.target as Element | null)?.closest('a');
    if (!a || a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href, window.location.href);
    if (url.origin !== window.location.origin) return;
    e.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
}
