import { signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { PAGES } from '../pages.ts';
import { query } from '../graphql/client.ts';
import { href, navigate, param } from '../router.ts';
import { PALETTE_TARGETS, type PaletteTargets } from './queries.ts';
import { isAdmin } from './session.ts';

const open = signal(false);
export const openPalette = () => (open.value = true);

interface Command {
  label: string;
  go: string;
}

/** Agents, servers (last 7 days) and firing alerts, read when the palette opens. */
const targets = signal<PaletteTargets | null>(null);

function loadTargets(): void {
  query<PaletteTargets>(PALETTE_TARGETS, { projectId: param('project') || null })
    .then((t) => (targets.value = t))
    // The palette still jumps to session ids and pages without them.
    .catch(() => (targets.value = null));
}

const MAX_MATCHES = 8;

/**
 * What the palette offers for `text`: a session id, pages, then agents, servers and firing alerts
 * whose name (or message) contains it.
 */
function commands(text: string): Command[] {
  const t = text.trim();
  const lower = t.toLowerCase();
  const project = param('project');
  const out: Command[] = [];
  if (t)
    out.push({
      label: `Open session ${t}`,
      go: href(`/sessions/${encodeURIComponent(t)}`, { project }),
    });
  for (const p of PAGES.filter(
    (p) => p.nav && (!p.admin || isAdmin()) && p.nav.toLowerCase().includes(lower),
  ))
    out.push({ label: `Go to ${p.nav}`, go: href(p.path, { project }) });
  const found = targets.value;
  if (!found || !t) return out;
  const named = found.lineage.nodes.filter((n) => n.name.toLowerCase().includes(lower));
  for (const n of named.slice(0, MAX_MATCHES)) {
    if (n.type === 'agent')
      out.push({
        label: `Agent ${n.name}: sessions`,
        go: href('/sessions', { project, agent: n.name }),
      });
    else if (n.type === 'server')
      out.push({
        label: `Server ${n.name}`,
        go: href(`/servers/${encodeURIComponent(n.name)}`, { project }),
      });
  }
  const alerts = found.alerts.edges.filter(
    (e) => e.node.message.toLowerCase().includes(lower) || e.node.id.startsWith(t),
  );
  for (const { node } of alerts.slice(0, MAX_MATCHES))
    out.push({ label: `Alert: ${node.message}`, go: href('/alerts', { project, alert: node.id }) });
  return out;
}

window.addEventListener('keydown', (e) => {
  const target = e.target as HTMLElement | null;
  const typing =
    target &&
    (target.tagName === 'INPUT' ||
      target.tagName === 'TEXTAREA' ||
      target.tagName === 'SELECT' ||
      target.isContentEditable);
  if ((e.key === 'k' && (e.ctrlKey || e.metaKey)) || (e.key === '/' && !typing)) {
    e.preventDefault();
    open.value = true;
  }
});

/** The command palette (`/` or Ctrl-K): jump to a session id, a page, an agent, a server or an alert. */
export function Palette() {
  const [text, setText] = useState('');
  const [sel, setSel] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!open.value) return;
    input.current?.focus();
    loadTargets();
  }, [open.value]);
  if (!open.value) return null;
  const list = commands(text);
  const close = () => {
    open.value = false;
    setText('');
    setSel(0);
  };
  const run = (c: Command | undefined) => {
    if (!c) return;
    close();
    navigate(c.go);
  };
  return (
    <div class="palette" onClick={(e) => e.target === e.currentTarget && close()}>
      <div role="dialog" aria-modal="true" aria-label="Command palette">
        <input
          ref={input}
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={list[sel] ? `palette-${sel}` : undefined}
          aria-label="Session id, page, agent, server or alert"
          placeholder="Session id, page, agent, server or alert…"
          value={text}
          onInput={(e) => {
            setText((e.target as HTMLInputElement).value);
            setSel(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') close();
            else if (e.key === 'ArrowDown') setSel((s) => Math.min(s + 1, list.length - 1));
            else if (e.key === 'ArrowUp') setSel((s) => Math.max(s - 1, 0));
            else if (e.key === 'Enter') run(list[sel]);
          }}
        />
        <ul id="palette-list" role="listbox" aria-label="Commands">
          {list.map((c, i) => (
            <li
              id={`palette-${i}`}
              key={c.go}
              role="option"
              aria-selected={i === sel}
              onClick={() => run(c)}
            >
              {c.label}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
