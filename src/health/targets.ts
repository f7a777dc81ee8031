import type { Config, ServerConfig, Transport } from '../config/types.ts';
import type { Db } from '../store/db.ts';
import { listCatalogEndpoints } from '../store/health-repo.ts';
import { DEFAULT_TIMEOUT_SECONDS } from './monitor-config.ts';
import type { CheckTarget } from '../model/health.ts';

/**
 * Configured servers (docs/health.md#configuring-servers): the config file's `servers[]`, which belong to the `default`
 * project, plus catalog entries with a url, which belong to their project. A catalog entry never
 * overrides a config-file server of the same project and name.
 */
export const CONFIG_PROJECT = 'default';

export async function resolveTargets(
  config: Pick<Config, 'servers'>,
  db: Db,
  projectId: string | null,
): Promise<CheckTarget[]> {
  const out = new Map<string, CheckTarget>();
  if (projectId === null || projectId === CONFIG_PROJECT) {
    for (const s of config.servers) out.set(targetKey(CONFIG_PROJECT, s.name), fromConfig(s));
  }
  for (const c of await listCatalogEndpoints(db, projectId)) {
    const key = targetKey(c.projectId, c.name);
    if (out.has(key)) continue;
    out.set(key, {
      projectId: c.projectId,
      name: c.name,
      transport: catalogTransport(c.transport, c.url),
      url: c.url,
      timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
      source: 'catalog',
    });
  }
  return [...out.values()].sort((a, b) =>
    a.projectId === b.projectId ? cmp(a.name, b.name) : cmp(a.projectId, b.projectId),
  );
}

export function targetKey(projectId: string, name: string): string {
  return `${projectId}\u0000${name}`;
}

function fromConfig(s: ServerConfig): CheckTarget {
  return {
    projectId: CONFIG_PROJECT,
    name: s.name,
    transport: s.transport,
    command: s.command,
    args: s.args,
    env: s.env,
    url: s.url,
    headers: s.headers,
    // Validated at load (src/config/schema-sections.ts): a bad value stops the start.
    intervalSeconds: s.intervalSeconds,
    timeoutSeconds: s.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    healthTool: s.healthTool,
    healthToolArgs: s.healthToolArgs,
    source: 'config',
  };
}

/** A catalog entry without a transport is guessed from its url: `/sse` is legacy SSE. */
function catalogTransport(t: string | null, url: string): Transport {
  if (t === 'sse' || t === 'streamable_http') return t;
  return /\/sse\/?$/.test(new URL(url, 'http://x').pathname) ? 'sse' : 'streamable_http';
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
