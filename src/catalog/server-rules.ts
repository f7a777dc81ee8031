import type { ServerConfig } from '../config/types.ts';
import type { ValidationIssue } from '../errors.ts';
import { checkOutboundUrl, policyMessage, type OutboundPolicy } from '../net/outbound-policy.ts';
import type { CatalogPatch, ServerRow } from '../store/catalog-repo.ts';

/**
 * What a server catalog write must respect besides field types (docs/api.md#shapes, docs/health.md#catalog-servers-and-the-outbound-url-policy):
 * its url passes the outbound policy; a new entry names its transport; a server written in
 * spyglass.yaml keeps the transport and url written there (the operator's, trusted as written).
 */
export function serverPatchIssues(
  patch: CatalogPatch,
  existing: ServerRow | undefined,
  configured: ServerConfig | undefined,
  policy: OutboundPolicy,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (configured) {
    if (patch.transport != null && patch.transport !== configured.transport) {
      issues.push({
        loc: ['body', 'transport'],
        msg: `read-only: server ${configured.name} is configured in spyglass.yaml with transport ${configured.transport}`,
        type: 'read_only',
      });
    }
    if (patch.url !== undefined && patch.url !== null && patch.url !== configured.url) {
      issues.push({
        loc: ['body', 'url'],
        msg: `read-only: server ${configured.name} is configured in spyglass.yaml`,
        type: 'read_only',
      });
    }
    return issues;
  }
  if (!existing && patch.transport == null)
    issues.push({
      loc: ['body', 'transport'],
      msg: 'Field required when adding a server',
      type: 'missing',
    });
  const transport = patch.transport ?? existing?.transport;
  const url = patch.url === undefined ? existing?.url : patch.url;
  if ((transport === 'sse' || transport === 'streamable_http') && !url)
    issues.push({ loc: ['body', 'url'], msg: `url is required for ${transport}`, type: 'missing' });
  if (patch.url) {
    const checked = checkOutboundUrl(patch.url, policy);
    if (!checked.ok)
      issues.push({ loc: ['body', 'url'], msg: policyMessage(checked.reason), type: 'url_policy' });
  }
  return issues;
}

/** True when the write gives the entry a url it did not have (it becomes a checked server). */
export function addsUrl(patch: CatalogPatch, existing: ServerRow | undefined): boolean {
  return Boolean(patch.url) && !existing?.url;
}
