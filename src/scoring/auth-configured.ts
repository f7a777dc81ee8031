import type { CheckTarget } from '../model/health.ts';

/** Names that carry a credential (docs/scorecards.md#dimensions: token, key, secret, password, auth, credential). */
const CREDENTIAL = /token|key|secret|passw(or)?d|auth|credential|cookie/i;

/**
 * "No authentication configured" of docs/scorecards.md#dimensions: an HTTP server without an auth-like header, a
 * stdio server without a credential-like environment variable. Empty values do not count.
 */
export function hasAuthConfigured(t: Pick<CheckTarget, 'transport' | 'headers' | 'env'>): boolean {
  const named = t.transport === 'stdio' ? t.env : t.headers;
  return Object.entries(named ?? {}).some(
    ([name, value]) => CREDENTIAL.test(name) && typeof value === 'string' && value.trim() !== '',
  );
}
