/** A user as services return it: never the password hash (docs/auth.md). */
export interface User {
  id: string;
  email: string;
  role: 'admin' | 'viewer';
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
