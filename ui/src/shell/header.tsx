import { mutate } from '../graphql/client.ts';
import { useQuery } from '../graphql/hooks.ts';
import { param, setParams } from '../router.ts';
import { openPalette } from './palette.tsx';
import { nextTheme, theme, utc } from './prefs.ts';
import { LOGOUT, PROJECTS } from './queries.ts';
import { viewer } from './session.ts';

/** The header: project switcher, command palette, UTC toggle, theme toggle, who is signed in. */
export function Header() {
  const v = viewer.value;
  const projects = useQuery<{ projects: { id: string; name: string }[] }>(PROJECTS);
  const project = param('project');
  const bound = v?.projectId ?? null;
  return (
    <header>
      <a class="brand" href="/">
        Spyglass
      </a>
      <label>
        <span class="muted">Project </span>
        {bound ? (
          <code>{bound}</code>
        ) : (
          <select
            value={project}
            onChange={(e) =>
              setParams({ project: (e.target as HTMLSelectElement).value }, { push: true })
            }
          >
            <option value="">All projects</option>
            {(projects.data?.projects ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        )}
      </label>
      <button
        onClick={openPalette}
        aria-keyshortcuts="/ Control+K"
        title="Command palette (/ or Ctrl-K)"
      >
        Go to…
      </button>
      <button
        aria-pressed={utc.value}
        onClick={() => (utc.value = !utc.value)}
        title="Show times in UTC"
      >
        UTC
      </button>
      <button onClick={nextTheme} title="Theme: system, dark, light">
        Theme: {theme.value}
      </button>
      {v && !v.authDisabled && (
        <>
          <span class="muted" data-testid="who">
            {v.user?.email ?? v.actor} ({v.role})
          </span>
          <button
            onClick={async () => {
              await mutate(LOGOUT).catch(() => undefined);
              window.location.assign('/');
            }}
          >
            Sign out
          </button>
        </>
      )}
    </header>
  );
}
