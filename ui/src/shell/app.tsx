import { useEffect } from 'preact/hooks';
import { PAGES, type Page } from '../pages.ts';
import { location, matchPath } from '../router.ts';
import { describeError, isUnauthenticated } from '../graphql/client.ts';
import { Login } from '../views/login/login.tsx';
import { Header } from './header.tsx';
import { Nav } from './nav.tsx';
import { Palette } from './palette.tsx';
import { Toasts } from './toasts.tsx';
import { ErrorState, Loading } from './states.tsx';
import { loadViewer, viewer, viewerError } from './session.ts';

function resolve(path: string): { page: Page; params: Record<string, string> } | null {
  for (const page of PAGES) {
    const m = matchPath(page.path, path);
    if (m) return { page, params: m.params };
  }
  return null;
}

/** The app: the login page until someone is signed in (or auth is off), then the shell. */
export function App() {
  useEffect(() => void loadViewer(), []);
  if (viewer.value === undefined) return <Loading what="the dashboard" />;
  if (viewer.value === null) {
    const err = viewerError.value;
    if (err && !isUnauthenticated(err))
      return (
        <main>
          <h1>Spyglass</h1>
          <ErrorState error={describeError(err)} retry={() => void loadViewer()} />
        </main>
      );
    return <Login />;
  }
  return <Shell />;
}

function Shell() {
  const found = resolve(location.value.path);
  const title = found?.page.title ?? 'Not found';
  useEffect(() => {
    document.title = `${title} · Spyglass`;
  }, [title]);
  return (
    <div class="layout">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <Header />
      <Nav />
      <main id="main" tabIndex={-1}>
        <h1>{title}</h1>
        {found ? (
          <found.page.view params={found.params} />
        ) : (
          <p>
            No page at <code>{location.value.path}</code>. <a href="/">Go to the overview</a>.
          </p>
        )}
      </main>
      <Palette />
      <Toasts />
    </div>
  );
}
