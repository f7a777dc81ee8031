import { SpyglassError, type ValidationIssue } from '../errors.ts';
import {
  AGENT_STATUSES,
  CATALOG_TRANSPORTS,
  type CatalogInput,
  type CatalogKind,
} from '../model/catalog.ts';
import { storedJsonIssues } from '../normalize/json-limits.ts';
import type { CatalogPatch } from '../store/catalog-repo.ts';

/**
 * The values of a catalog write, the same for every adapter: the whole entry within the stored-JSON
 * size limit (strings and tags are stored as sent), an agent's status and a server's transport
 * among the allowed ones, a server's url http(s). Every problem at once, each named as the REST
 * body spells it; answers the fields to store (agents ignore transport and url, servers status).
 */
export function checkEntry(kind: CatalogKind, input: CatalogInput): CatalogPatch {
  const tooLarge = storedJsonIssues(input, ['body']);
  if (tooLarge.length > 0) throw invalid(tooLarge);
  const issues: ValidationIssue[] = [];
  const patch: CatalogPatch = {
    description: input.description,
    owner: input.owner,
    runbookUrl: input.runbookUrl,
    tags: input.tags,
  };
  const oneOf = (field: string, allowed: readonly string[]) =>
    issues.push({
      loc: ['body', field],
      msg: `Input should be one of ${allowed.join(', ')}`,
      type: 'enum',
    });
  if (kind === 'agent' && input.status !== undefined) {
    const status = input.status;
    if (status === null || !(AGENT_STATUSES as readonly string[]).includes(status))
      oneOf('status', AGENT_STATUSES);
    else patch.status = status;
  }
  if (kind === 'server') {
    patch.url = input.url;
    const transport = input.transport;
    if (transport != null && !(CATALOG_TRANSPORTS as readonly string[]).includes(transport))
      oneOf('transport', CATALOG_TRANSPORTS);
    else patch.transport = transport;
    if (patch.url && !/^https?:\/\//.test(patch.url))
      issues.push({
        loc: ['body', 'url'],
        msg: 'Input should be an http(s) URL',
        type: 'url_parsing',
      });
  }
  if (issues.length > 0) throw invalid(issues);
  return patch;
}

export function invalid(issues: ValidationIssue[]): SpyglassError {
  return new SpyglassError('validation', 'invalid catalog entry', { issues });
}
