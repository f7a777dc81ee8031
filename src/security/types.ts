/**
 * The security scan model (docs/security.md): what a scan observes of a
 * server, what a check is, and what it reports. Pure types; checks live beside this file and never
 * talk to the server themselves: everything they judge is in the Observation.
 */
import type { CheckTarget, ToolSnapshot } from '../model/health.ts';
import type { Db } from '../store/db.ts';
import {
  OWASP_TITLES,
  type FindingKind,
  type NewFinding,
  type Severity,
} from '../model/security-scan.ts';

export type { FindingKind, Severity };

export { OWASP_TITLES };

/**
 * One finding. `rule` is the stable rule id (`poisoning.override`, `secrets.env`, `supply.cve`...)
 * that docs/security.md and SARIF list; `kind` is what the scorecard counts it as (schema-security.ts).
 */
export interface Finding extends NewFinding {
  /**
   * Where in the server's surface: `args[2]`, `env.OPENAI_API_KEY`, `url`, `headers.Authorization`,
   * `instructions`, `tools.<name>.description`, `tools.<name>.inputSchema.properties.<p>.description`,
   * `prompts.<name>.description`, `resources.<uri>.description`, `transport`. Shown by the CLI and SARIF.
   */
  location?: string | null;
  /** A short excerpt of what matched (at most 200 characters, secrets masked), or null. */
  evidence?: string | null;
}

/** What the transport answered to the extra requests of a remote scan (null fields: not determined). */
export interface HttpExposure {
  /** initialize and tools/list succeeded without any credential (none configured, or the configured ones left out). */
  unauthenticated: boolean | null;
  /** The server publishes OAuth protected-resource metadata (`/.well-known/oauth-protected-resource`). */
  oauthMetadata: boolean | null;
  /** An initialize sent with a foreign Origin (and Host) was answered rather than refused with 403/421. */
  foreignOriginAccepted: boolean | null;
  /** The answer to that request carried `Access-Control-Allow-Origin: *`. */
  allowOriginStar: boolean | null;
  /** Legacy SSE: the `endpoint` event's URI carries the session id in its query. */
  sessionIdInUrl: boolean | null;
}

/** Everything a scan saw of one server, from one health check with inventory (docs/security.md#how-a-scan-runs). */
export interface Observation {
  /** The health check reached the server and tools/list answered. */
  reachable: boolean;
  /** The health check's error when not reachable. */
  error: string | null;
  serverInfo: Record<string, unknown> | null;
  protocolVersion: string | null;
  instructions: string | null;
  capabilities: Record<string, unknown> | null;
  /** tools/list, every page, as the server sent them (not reduced). */
  tools: Record<string, unknown>[];
  /** null when the server does not offer them. */
  prompts: Record<string, unknown>[] | null;
  resources: Record<string, unknown>[] | null;
  /** Remote transports only; null for stdio. */
  http: HttpExposure | null;
}

/** A tool definition as pinned: the hashed fields of docs/health.md#schema-hash-and-drift and their hash. */
export interface PinnedTool {
  hash: string;
  definition: ToolSnapshot;
  pinnedAt: Date;
}

/**
 * Trust on first use (docs/security.md#pinning-trust-on-first-use): the first scan that sees a definition pins it; later
 * scans compare against the pin (rug pull), not against the previous check (that is drift).
 * A tool first seen in a later scan is pinned then. Pins change only when an operator re-pins.
 */
export interface Pin {
  serverInfo: Record<string, unknown> | null;
  instructions: string | null;
  instructionsPinnedAt: Date | null;
  tools: Map<string, PinnedTool>;
}

/** Another configured server of the same project, as its latest scan or check saw it (cross-server shadowing). */
export interface Peer {
  name: string;
  tools: { name: string; description: string | null }[];
}

/** What each per-server check gets. */
export interface ScanContext {
  target: CheckTarget;
  observation: Observation;
  /** Other configured servers of the project (never the target itself). */
  peers: readonly Peer[];
  /** The server's pin before this scan; null on its first scan. */
  pin: Pin | null;
  now: Date;
}

/** A per-server check: pure over its context (CVE lookup closes over the advisory database). */
export type Check = (ctx: ScanContext) => Finding[];

/** What a project-wide check (servers seen in spans but not configured: OWASP-MCP-09) gets. */
export interface ProjectScanContext {
  db: Db;
  projectId: string;
  /** Names of the project's configured servers (config file + catalog entries with a url). */
  configured: readonly string[];
  now: Date;
}

/** A project-wide finding belongs to a server that is not configured: it gets a scan result of its own. */
export type ProjectCheck = (
  ctx: ProjectScanContext,
) => Promise<{ serverName: string; finding: Finding }[]>;
