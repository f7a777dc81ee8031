/**
 * Credential shapes (docs/security.md#secrets-capability-surface-execution-surface-transport-and-shadow-servers "credential literals") and what does not count as one.
 * Each pattern is a provider's documented key format, so a match is very likely a live secret.
 * The one list behind the secrets check (OWASP-MCP-01), the poisoning rule for credentials in tool
 * text (and its excerpt masking) and the masking of launch-command evidence.
 */
export const SECRET_PATTERNS: readonly { name: string; re: RegExp }[] = [
  { name: 'AWS access key id', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { name: 'GitHub token', re: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/ },
  { name: 'GitHub fine-grained token', re: /\bgithub_pat_[A-Za-z0-9_]{22,}/ },
  // Keys and tokens carry digits; words joined by dashes (`sk-learn-…`, `Bearer authentication-…`) do not.
  {
    name: 'API secret key (sk-…)',
    re: /\bsk-(?:proj-|ant-)?(?=[A-Za-z_-]{0,60}\d)[A-Za-z0-9_-]{20,}/,
  },
  { name: 'Slack token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { name: 'private key', re: /-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----/ },
  { name: 'bearer token', re: /\bBearer\s{1,3}(?=[A-Za-z._~+/-]{0,60}\d)[A-Za-z0-9._~+/-]{16,}=*/ },
  { name: 'JSON Web Token', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
];

/** The same patterns with the global flag, for finding or replacing every occurrence. */
export const SECRET_LITERALS: readonly RegExp[] = SECRET_PATTERNS.map(
  (p) => new RegExp(p.re.source, 'g'),
);

/** Query parameters and flags whose value is a credential. */
export const CREDENTIAL_NAME =
  /^(?:api[-_]?key|apikey|key|token|access[-_]?token|auth[-_]?token|secret|client[-_]?secret|password|passwd|pwd|auth)$/i;

/** Header names that carry a credential (the words of docs/scorecards.md#dimensions, as in scoring/auth-configured.ts). */
export const CREDENTIAL_HEADER = /token|key|secret|passw(or)?d|auth|credential|cookie/i;

/** `${VAR}`, `$VAR`, `<token>`, `{{token}}`, `%VAR%`, `xxx`, `changeme`, `your-api-key`, empty: written to be replaced. */
export function isPlaceholder(value: string): boolean {
  const v = value.trim();
  return (
    v === '' ||
    /^\$\{[^}]*\}$|^\$[A-Za-z_][A-Za-z0-9_]*$|^<[^>]*>$|^\{\{[^}]*\}\}$|^%[A-Za-z_][A-Za-z0-9_]*%$/.test(
      v,
    ) ||
    /^(?:x+|\*+|\.+|changeme|redacted|placeholder|none|null|todo)$/i.test(v) ||
    /^(?:your|my)[-_ ]/i.test(v)
  );
}

/** The first credential shape in `text`: the pattern's name and the matched text (to be masked). */
export function findSecret(text: string): { name: string; match: string } | null {
  for (const p of SECRET_PATTERNS) {
    const m = p.re.exec(text);
    if (m && !isPlaceholder(m[0].replace(/^Bearer\s+/, ''))) return { name: p.name, match: m[0] };
  }
  return null;
}

/** A credential carried by a URL: its userinfo, or a credential-named query parameter with a real value. */
export function secretInUrl(url: URL): { what: string; value: string } | null {
  if (url.password && !isPlaceholder(decodeURIComponent(url.password)))
    return { what: 'a password in the URL userinfo', value: decodeURIComponent(url.password) };
  if (
    url.username &&
    !isPlaceholder(decodeURIComponent(url.username)) &&
    findSecret(decodeURIComponent(url.username))
  ) {
    return { what: 'a token in the URL userinfo', value: decodeURIComponent(url.username) };
  }
  for (const [name, value] of url.searchParams) {
    if (CREDENTIAL_NAME.test(name) && !isPlaceholder(value))
      return { what: `the query parameter ${name}`, value };
  }
  return null;
}
