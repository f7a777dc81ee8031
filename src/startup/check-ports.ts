import { createServer } from 'node:net';
import type { Config } from '../config/types.ts';

/** A port that cannot be listened on, reported before anything (the database included) is opened. */
export class PortError extends Error {
  constructor(readonly problems: string[]) {
    super(
      problems.length === 1
        ? (problems[0] as string)
        : `cannot listen:\n  - ${problems.join('\n  - ')}`,
    );
    this.name = 'PortError';
  }
}

export interface PortToCheck {
  port: number;
  /** What listens there, for people: `HTTP`, `OTLP/gRPC`. */
  what: string;
  /** The setting that moves it. */
  env: string;
  /** Extra advice when the port is taken. */
  hint?: string;
}

/**
 * Binds each port for a moment and lets it go, so `serve` fails before opening the database, and
 * never with one listener up and the other refused. Port 0 (ephemeral, or off for gRPC) is skipped.
 */
export async function checkPorts(host: string, ports: PortToCheck[]): Promise<void> {
  const problems: string[] = [];
  for (const p of ports) {
    if (p.port === 0) continue;
    const code = await tryListen(host, p.port);
    if (code) problems.push(describe(host, p, code));
  }
  if (problems.length > 0) throw new PortError(problems);
}

/** The HTTP and OTLP/gRPC ports `serve` listens on (workers share them, so only the primary checks). */
export async function checkServePorts(
  config: Pick<Config, 'host' | 'port' | 'grpcPort'>,
): Promise<void> {
  await checkPorts(config.host, [
    { port: config.port, what: 'HTTP', env: 'SPYGLASS_PORT' },
    {
      port: config.grpcPort,
      what: 'OTLP/gRPC',
      env: 'SPYGLASS_GRPC_PORT',
      hint: 'a local OpenTelemetry Collector often holds 4317; SPYGLASS_GRPC_PORT=0 turns the gRPC receiver off',
    },
  ]);
}

function describe(host: string, p: PortToCheck, code: string): string {
  const where = `${host.includes(':') ? `[${host}]` : host}:${p.port}`;
  if (code === 'EADDRINUSE')
    return `${p.what} port ${where} is already in use${p.hint ? ` (${p.hint})` : ''}; set ${p.env} to a free port`;
  if (code === 'EACCES')
    return `${p.what} port ${where}: permission denied (ports below 1024 need privileges); set ${p.env} to a port above 1023`;
  if (code === 'EADDRNOTAVAIL')
    return `${p.what} cannot listen on ${where}: ${host} is not an address of this machine; check SPYGLASS_HOST`;
  return `${p.what} cannot listen on ${where} (${code}); check SPYGLASS_HOST and ${p.env}`;
}

function tryListen(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    srv.listen({ host, port, exclusive: true }, () => srv.close(() => resolve(null)));
  });
}
