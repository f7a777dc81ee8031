import proxyaddr from 'proxy-addr';
import type { Config, ServerConfig } from './types.ts';

/** Rules between settings, checked once each setting is valid on its own. */
export function crossProblems(c: Config, names: Map<string, string>): string[] {
  const problems: string[] = [];
  // The variable when the value came from the environment, else the key.
  const env = (path: string) => names.get(path) ?? path;
  const port = env('server.port');
  const grpc = env('server.grpc_port');
  if (c.monitor.concurrencyReserved >= c.monitor.concurrency)
    problems.push('monitor.concurrency_reserved must be less than monitor.concurrency');
  const cidrs = names.get('auth.trusted_proxy_cidrs');
  checkCidrs(
    cidrs ? `${cidrs} (auth.trusted_proxy_cidrs)` : 'auth.trusted_proxy_cidrs',
    c.trustedProxyCidrs,
    problems,
  );
  checkCidrs('network.allow_private_targets', c.network.allowPrivateTargets, problems);
  if (c.port !== 0 && c.port === c.grpcPort)
    problems.push(
      `${port} and ${grpc} are both ${c.port}; HTTP and OTLP/gRPC need different ports`,
    );
  const pg = /^postgres(ql)?:\/\//;
  const dbUrl = env('database.url');
  const readUrl = env('database.read_url');
  if (c.databaseUrl && !pg.test(c.databaseUrl))
    problems.push(`${dbUrl} must start with postgres:// or postgresql://`);
  if (c.rateLimits.spansPerMinute < c.ingest.maxBatchSpans)
    problems.push(
      `rate_limits.spans_per_minute (${c.rateLimits.spansPerMinute}) must be at least ingest.max_batch_spans (${c.ingest.maxBatchSpans}), or a full batch could never be accepted`,
    );
  if (c.http.headersTimeoutSeconds > c.http.requestTimeoutSeconds)
    problems.push('http.headers_timeout_seconds cannot exceed http.request_timeout_seconds');
  const workers = env('server.workers');
  if (c.workers > 1 && !c.redisUrl)
    problems.push(
      `${workers} above 1 needs SPYGLASS_REDIS_URL (rate limits and live events are shared through Redis)`,
    );
  if (c.workers > 1 && !c.databaseUrl)
    problems.push(
      `${workers} above 1 needs SPYGLASS_DATABASE_URL (the embedded database belongs to one process)`,
    );
  if (c.databaseReadUrl && !pg.test(c.databaseReadUrl))
    problems.push(`${readUrl} must start with postgres:// or postgresql://`);
  if (c.databaseReadUrl && !c.databaseUrl)
    problems.push(`${readUrl} needs SPYGLASS_DATABASE_URL (a replica of which database?)`);
  serverProblems(c.servers, problems);
  return problems;
}

function serverProblems(servers: ServerConfig[], problems: string[]): void {
  const seen = new Set<string>();
  servers.forEach((s, i) => {
    const where = `servers[${i}]`;
    if (seen.has(s.name)) problems.push(`${where}.name "${s.name}" is used twice`);
    seen.add(s.name);
    if (s.transport === 'stdio' && !s.command)
      problems.push(`${where}.command is required for stdio`);
    if (s.transport !== 'stdio' && !s.url)
      problems.push(`${where}.url is required for ${s.transport}`);
  });
}

/** proxy-addr is what reads trusted proxies; it also knows an address from a CIDR. */
function checkCidrs(name: string, values: string[], problems: string[]): void {
  for (const v of values) {
    try {
      proxyaddr.compile(v);
    } catch {
      problems.push(
        `${name}: ${JSON.stringify(v)} is not an IP address or CIDR (like 10.0.0.0/8 or fd00::/8)`,
      );
    }
  }
}
