import type { Role } from './user.ts';

/** An API key as services return it: never the key itself, nor its hash (docs/auth.md). */
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  projectId: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** A key as created: the secret is shown this once. */
export interface CreatedApiKey {
  key: string;
  apiKey: ApiKey;
}

/** The API's JSON for a key (GET /api/auth/api-keys), also what `spyglass api-key --json` prints. */
export function toApiKeyJson(k: ApiKey) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    role: k.role,
    project_id: k.projectId,
    created_at: k.createdAt.toISOString(),
    expires_at: k.expiresAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
  };
}
