import { location } from '../router.ts';
import type { PageProps } from '../pages.ts';

/** A page still to be built: says so, and keeps its URL state visible. */
export function Placeholder({ params }: PageProps) {
  const q = location.value.query.toString();
  return (
    <>
      <p class="muted">This page is not built yet (issue #27).</p>
      {(q || Object.keys(params).length > 0) && (
        <p>
          Filters:{' '}
          <code>
            {[...Object.entries(params).map(([k, v]) => `${k}=${v}`), q].filter(Boolean).join(' ')}
          </code>
        </p>
      )}
    </>
  );
}
