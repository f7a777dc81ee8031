import { forbidden } from '../errors.ts';
import type { Principal } from './principal.ts';

/**
 * Access levels, one rule for every adapter (REST routes name one in their config; GraphQL
 * resolvers, the gRPC receiver and the CLI call `enforce`). Viewers may read; writes need the
 * admin role; user management needs an admin key bound to no project.
 */
export type Access = 'public' | 'read' | 'write' | 'admin' | 'global-admin';

export function enforce(p: Principal, access: Access): void {
  if (access === 'read' || access === 'public') return;
  if (p.role !== 'admin')
    throw forbidden(
      access === 'write' ? 'the viewer role is read-only' : 'this route needs the admin role',
    );
  if (access === 'global-admin' && p.projectId !== null)
    throw forbidden('this route needs a key that is not bound to a project');
}
