import { href, location } from '../../router.ts';
import { Time } from '../../shell/time.tsx';
import type { AlertItem } from './queries.ts';
import { sourceLink } from './source.ts';

/** The status, with when a snooze ends. */
export function StatusText({ alert }: { alert: AlertItem }) {
  if (alert.status === 'snoozed' && alert.snoozedUntil)
    return (
      <span class="status snoozed">
        snoozed until <Time value={alert.snoozedUntil} />
      </span>
    );
  return <span class={`status ${alert.status}`}>{alert.status}</span>;
}

export function Severity({ value }: { value: string }) {
  return <span class={`severity sev-${value}`}>{value}</span>;
}

/** One inbox row: its title opens the detail (`?alert=<id>`, a shareable link). */
export function AlertRow(props: { alert: AlertItem; project: string; selected: boolean }) {
  const a = props.alert;
  const src = sourceLink(a.source, props.project);
  const open = href('/alerts', { ...Object.fromEntries(location.value.query), alert: a.id });
  return (
    <tr class={props.selected ? 'selected' : undefined} data-alert={a.id}>
      <td>
        <Time value={a.firedAt} />
      </td>
      <td>
        <Severity value={a.severity} />
      </td>
      <td>
        <code>{a.type}</code>
      </td>
      <td>
        <a href={open} aria-current={props.selected ? 'true' : undefined}>
          {a.title}
        </a>
      </td>
      <td>{src ? <a href={src.href}>{src.label}</a> : <span class="muted">—</span>}</td>
      <td>
        <StatusText alert={a} />
      </td>
    </tr>
  );
}
