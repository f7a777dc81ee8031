import type { ComponentChildren } from 'preact';
import { isAdmin, viewer } from '../../shell/session.ts';

/**
 * The admin settings pages' gate: other roles get a clear "admins only" message instead of a form
 * they could not use (the server refuses them anyway, and its error is shown when it does).
 */
export function AdminsOnly({ what, children }: { what: string; children: ComponentChildren }) {
  if (isAdmin()) return <>{children}</>;
  return (
    <section class="admins-only" role="alert" aria-labelledby="admins-only">
      <h2 id="admins-only">Admins only</h2>
      <p>
        {what} can be seen and changed by admins only; you are signed in as{' '}
        <strong>{viewer.value?.actor ?? 'nobody'}</strong> ({viewer.value?.role ?? 'no role'}).
      </p>
      <p>Ask an admin of this Spyglass instance if you need access.</p>
    </section>
  );
}
