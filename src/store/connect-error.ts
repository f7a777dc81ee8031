/**
 * Turns a failed PostgreSQL connection into one sentence a user can act on: what failed, where
 * (host, port, database, user; never the password) and what to check. Without this, every cause
 * surfaced as drizzle's `Failed query: CREATE SCHEMA IF NOT EXISTS "drizzle"`.
 */
export class DatabaseConnectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseConnectError';
  }
}

interface Target {
  host: string;
  port: string;
  database: string;
  user: string;
  password: string;
}

export function describeTarget(url: string): Target {
  const u = new URL(url);
  const user =
    decodeURIComponent(u.username) || process.env.PGUSER || process.env.USER || 'postgres';
  return {
    host: u.hostname.replace(/^\[|\]$/g, '') || 'localhost',
    port: u.port || '5432',
    database: decodeURIComponent(u.pathname.slice(1)) || user,
    user,
    password: decodeURIComponent(u.password),
  };
}

export function connectError(err: unknown, url: string): DatabaseConnectError {
  const t = describeTarget(url);
  const where = `PostgreSQL at ${t.host}:${t.port} (database "${t.database}", user "${t.user}")`;
  const cause = rootCause(err);
  const code = String(cause.code ?? '');
  // Only a message we did not write could contain the password (a driver echoing the URL).
  const raw = cause.message || 'unknown error';
  const reason = REASONS[code]?.(t) ?? (t.password ? raw.split(t.password).join('***') : raw);
  return new DatabaseConnectError(`cannot connect to ${where}: ${reason}`);
}

const REASONS: Record<string, (t: Target) => string> = {
  ECONNREFUSED: () =>
    'connection refused; nothing is listening there. Is PostgreSQL running, and is the port in SPYGLASS_DATABASE_URL right?',
  ENOTFOUND: (t) => `unknown host "${t.host}"; check the host name in SPYGLASS_DATABASE_URL`,
  EAI_AGAIN: (t) =>
    `the host name "${t.host}" could not be resolved (DNS did not answer); check the host name or the network`,
  ETIMEDOUT: () => 'the connection timed out; check the host, the port and any firewall in between',
  EHOSTUNREACH: () => 'the host is unreachable; check the host name and the network',
  CONNECT_TIMEOUT: () =>
    'no answer within 10 s; check the host, the port and any firewall in between',
  ECONNRESET: () =>
    'the server closed the connection; is that port a PostgreSQL server, and does it require TLS (add ?sslmode=require)?',
  '28P01': (t) =>
    `password authentication failed for user "${t.user}"; check the user and password in SPYGLASS_DATABASE_URL`,
  '28000': (t) =>
    `the server refused user "${t.user}" (the role does not exist or pg_hba.conf has no entry for this client)`,
  '3D000': (t) =>
    `database "${t.database}" does not exist; create it (createdb ${t.database}) or fix the name in SPYGLASS_DATABASE_URL`,
  '53300': () =>
    "the server has too many connections; lower other clients' pools or raise max_connections",
  '57P03': () => 'the server is starting up or shutting down; try again in a moment',
};

/** drizzle wraps driver errors (`Failed query: …`, the driver error as `cause`); take the driver's. */
function rootCause(err: unknown): { code?: unknown; message: string } {
  let e = err as
    { code?: unknown; message?: string; cause?: unknown; errors?: unknown[] } | undefined;
  for (let i = 0; i < 5 && e; i++) {
    if (e.code !== undefined) break;
    // Node reports a host with several addresses as an AggregateError of per-address errors.
    const next = e.cause ?? (Array.isArray(e.errors) ? e.errors[0] : undefined);
    if (!next) break;
    e = next as typeof e;
  }
  return { code: e?.code, message: e?.message ?? String(err) };
}
