import { visibleEscapes } from '../../lib/json-view.ts';
import type { FindingItem } from './security-queries.ts';

const v = (s: string | null | undefined) => (s == null ? '' : visibleEscapes(s));

export const sevClass = (s: string) => `sev sev-${s.toLowerCase().replace(/[^a-z]/g, '')}`;

/** One finding: severity, rule and where, then what was found, the evidence quoted, the fix. */
export function FindingView({ finding: f }: { finding: FindingItem }) {
  return (
    <li class="finding">
      <h3>
        <span class={sevClass(f.severity)}>{f.severity}</span> {v(f.title)}
      </h3>
      <p class="muted">
        <code>{f.rule}</code> · {f.category}
        {f.owaspTitle && ` ${f.owaspTitle}`}
        {f.cveId && ` · ${f.cveId}`}
        {f.toolName && (
          <>
            {' '}
            · tool <code>{v(f.toolName)}</code>
          </>
        )}
        {f.location && (
          <>
            {' '}
            · at <code>{v(f.location)}</code>
          </>
        )}
      </p>
      <p>{v(f.description)}</p>
      {f.evidence && (
        <>
          <h4>Evidence</h4>
          <pre class="evidence">{v(f.evidence)}</pre>
        </>
      )}
      <h4>Remediation</h4>
      <p>{v(f.remediation)}</p>
    </li>
  );
}
