import { signal } from '@preact/signals';
import { query } from '../graphql/client.ts';
import { VIEWER, type Viewer } from './queries.ts';

/**
 * The signed-in principal, as the server resolves it (role and project scope). The UI hides what
 * the role cannot do; the server refuses it anyway. `undefined` while loading, `null` when
 * nobody is signed in (the login page shows).
 */
export const viewer = signal<Viewer | null | undefined>(undefined);
export const viewerError = signal<unknown>(null);

export async function loadViewer(): Promise<void> {
  try {
    const data = await query<{ viewer: Viewer | null }>(VIEWER);
    viewer.value = data.viewer;
    viewerError.value = null;
  } catch (err) {
    viewerError.value = err;
    viewer.value = null;
  }
}

export const isAdmin = () => viewer.value?.role === 'admin';
