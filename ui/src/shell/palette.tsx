import { signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { PAGES } from '../pages.ts';
import { href, navigate, param } from '../router.ts';

const open = signal(false);
export const openPalette = () => (open.value = true);

interface Command {
  label: string;
  go: string;
}

/** What the palette offers for `text`: a session id, then pages whose name matches. */
function commands(text: string): Command[] {
  const t = text.trim();
  const project = param('project');
  const out: Command[] = [];
  if (t)
    out.push({
      label: `Open session ${t}`,
      go: href(`/sessions/${encodeURIComponent(t)}`, { project }),
    });
  for (const p of PAGES.filter((p) => p.nav && p.nav.toLowerCase().includes(t.toLowerCase())))
    out.push({ label: `Go to ${p.nav}`, go: href(p.path, { project }) });
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

/** The command palette (`/` or Ctrl-K): jump to a session id or a page. */
export function Palette() {
  const [text, setText] = useState('');
  const [sel, setSel] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (open.value) input.current?.focus();
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
          aria-label="Session id or page"
          placeholder="Session id or page…"
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
