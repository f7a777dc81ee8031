import { forbidden } from '../errors.ts';
import type { Role } from '../model/user.ts';

export type { Role };

/** Who is calling: resolved once per request (HTTP or gRPC) and passed to every service. */
export interface Principal {
  role: Role;
  /** The project a key is bound to; null for global keys (and auth-disabled local mode). */
  projectId: string | null;
  /** For audit: masked e-mail or key prefix. */
  actor: string;
  keyId: string | null;
  /** The signed-in user of a dashboard session (docs/ui.md#auth); absent for keys. */
  userId?: string;
}

export const LOCAL_ADMIN: Principal = {
  role: 'admin',
  projectId: null,
  actor: 'local',
  keyId: null,
};
/** The caller of a public route (probes): may do nothing else. */
export const ANONYMOUS: Principal = {
  role: 'viewer',
  projectId: null,
  actor: 'anonymous',
  keyId: null,
};

/**
 * A dashboard request without any credential while keys are on (docs/ui.md#auth): may only run
 * the sign-in operations (src/graphql/ui-auth.ts refuses everything else). Its project names none
 * that can exist, so a read that slipped through would still find nothing.
 */
export const SIGNED_OUT: Principal = {
  role: 'viewer',
  projectId: '\u0000signed-out',
  actor: 'anonymous',
  keyId: null,
};

/**
 * The project a read or write applies to. A project-bound caller may only name its own project;
 * a global caller gets what it named, or null for "every project".
 */
export function scopeProject(p: Principal, requested: string | null | undefined): string | null {
  if (p.projectId !== null) {
    if (requested && requested !== p.projectId)
      throw forbidden(`this key is bound to project ${p.projectId}`);
    return p.projectId;
  }
  return requested || null;
}
