import { gql } from '@urql/core';
import { signal } from '@preact/signals';
import { useSubscription } from '../graphql/hooks.ts';
import { href, location } from '../router.ts';
import { viewer } from './session.ts';
import './toasts.css';

/** New alerts as they fire, for the toasts on every page (the snake_case inbox record in `data`). */
const ALERT_FIRED_TOAST = gql`
  subscription AlertFiredToast {
    alertFired {
      data
    }
  }
`;

interface Toast {
  id: string;
  severity: string;
  title: string;
  project: string;
}

const HIDE_AFTER_MS = 10_000;
const MAX_SHOWN = 4;
const toasts = signal<Toast[]>([]);
const timers = new Map<string, ReturnType<typeof setTimeout>>();

function dismiss(id: string): void {
  clearTimeout(timers.get(id));
  timers.delete(id);
  toasts.value = toasts.value.filter((t) => t.id !== id);
}

/** Starts (or restarts) the toast's hide timer; hovering or focusing it holds the timer. */
function arm(id: string): void {
  clearTimeout(timers.get(id));
  if (!toasts.value.some((t) => t.id === id)) return;
  timers.set(
    id,
    setTimeout(() => dismiss(id), HIDE_AFTER_MS),
  );
}

function hold(id: string): void {
  clearTimeout(timers.get(id));
}

function show(t: Toast): void {
  if (toasts.value.some((x) => x.id === t.id)) return;
  const kept = [t, ...toasts.value];
  for (const old of kept.slice(MAX_SHOWN)) dismiss(old.id);
  toasts.value = kept.slice(0, MAX_SHOWN);
  arm(t.id);
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The project the server answers for: a project-bound key's own, else `?project=`, else default. */
export function viewedProject(): string {
  return viewer.value?.projectId ?? (location.value.query.get('project') || 'default');
}

/**
 * The shell's toast host: each alert fired in the project being viewed is announced (a polite
 * `role="status"` region, fixed over the page so nothing moves), with a link to it; a toast
 * hides itself 10 s after it was last hovered or focused, or with its close button, and the alert stays in the inbox.
 */
export function Toasts() {
  useSubscription<{ alertFired: { data: Record<string, unknown> } }>(
    ALERT_FIRED_TOAST,
    undefined,
    (d) => {
      const a = d.alertFired.data;
      const project = viewedProject();
      const id = text(a.id);
      if (!id || text(a.project_id) !== project) return;
      show({ id, severity: text(a.severity), title: text(a.title), project });
    },
  );
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.value.map((t) => (
        <div
          key={t.id}
          class={`toast toast-${t.severity}`}
          onMouseEnter={() => hold(t.id)}
          onMouseLeave={() => arm(t.id)}
          onFocusIn={() => hold(t.id)}
          onFocusOut={() => arm(t.id)}
        >
          <p>
            <strong>New {t.severity} alert:</strong> {t.title}
          </p>
          <a
            href={href('/alerts', {
              project: t.project === 'default' ? null : t.project,
              alert: t.id,
            })}
            onClick={() => dismiss(t.id)}
          >
            Open the alert
          </a>
          <button type="button" aria-label={`Dismiss: ${t.title}`} onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
