/** The roles of users and API keys (docs/auth.md#roles-and-access). */
export const ROLES = ['admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (v: string): v is Role => (ROLES as readonly string[]).includes(v);

/** A user as services return it: never the password hash (docs/auth.md). */
export interface User {
  id: string;
  email: string;
  role: Role;
  status: string;
  createdAt: Date;
  lastLoginAt: Date | null;
}

/** An invitation as created: the token is shown this once and only its hash is stored. */
export interface Invitation {
  user: User;
  inviteToken: string;
  expiresAt: Date;
}

/** The API's JSON for a user (GET /api/users). */
export function toUserJson(u: User) {
  return {
    id: u.id,
    email: u.email,
    role: u.role,
    status: u.status,
    created_at: u.createdAt.toISOString(),
    last_login_at: u.lastLoginAt?.toISOString() ?? null,
  };
}
