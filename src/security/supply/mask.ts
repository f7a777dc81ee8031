import { SECRET_LITERALS } from '../checks/secret-patterns.ts';

/**
 * Evidence from a launch command may carry credentials (`curl -H "Authorization: Bearer …" | sh`,
 * `bash -c "API_KEY=… npx …"`); Finding.evidence promises them masked. This masks the shapes a
 * command line uses: header values, credential-named variables and query parameters, URL
 * userinfo, and well-known token literals.
 */
const RULES: [RegExp, string][] = [
  [/(authorization\s*:\s*)(?:(?:bearer|basic|token)\s+)?[^\s'"]+/gi, '$1***'],
  [/\b(bearer|token|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 ***'],
  [/([?&][^=&\s]*(?:key|token|secret|password|auth)[^=&\s]*=)[^&\s'"]+/gi, '$1***'],
  [
    /\b([A-Za-z0-9_]*(?:key|token|secret|passw(?:or)?d|pass|auth|credential)[A-Za-z0-9_]*=)[^\s'"]+/gi,
    '$1***',
  ],
  [/(\/\/)[^/\s@:]+:[^/\s@]+@/g, '$1***@'],
  ...SECRET_LITERALS.map((re): [RegExp, string] => [re, '***']),
];

/** The text with credentials masked, cut to 200 characters (the Finding.evidence limit). */
export function maskEvidence(text: string): string {
  return RULES.reduce((t, [re, to]) => t.replace(re, to), text).slice(0, 200);
}
