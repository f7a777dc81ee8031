import { createHash } from 'node:crypto';
import { escapeHidden } from './poisoning/text.ts';
import { OWASP_TITLES } from './types.ts';

/**
 * `spyglass scan --sarif`: one SARIF 2.1.0 run for code-scanning uploads. Works on the scan JSON
 * (src/model/security-scan.ts) so a local scan and one fetched with --url print the same. Rules are the rule ids
 * the findings carry; results point at the server's entry in spyglass.yaml (when it has one) and
 * name the server and tool as a logical location. Names and texts that quote a server are
 * escaped as findings' evidence is (escapeHidden): a SARIF viewer shows `\u{202E}`, not a reordered line.
 */
export interface SarifOptions {
  toolVersion: string;
  /** spyglass.yaml relative to the working directory, with `/` separators; undefined without a config file. */
  configUri?: string | undefined;
  /** Line of each config-file server's `- name:` entry (config-lines.ts); only project `default` servers have one. */
  serverLines: ReadonlyMap<string, number>;
}

interface FindingJson {
  severity: string;
  category: string;
  rule: string;
  title: string;
  description: string;
  remediation: string;
  tool_name: string | null;
  cve_id: string | null;
  location: string | null;
  evidence: string | null;
}
export interface ScanJson {
  project_id: string;
  server_name: string;
  error: string | null;
  findings: FindingJson[];
}

const LEVEL: Record<string, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};
/** GitHub code scanning ranks alerts by this CVSS-like number. */
const SECURITY_SEVERITY: Record<string, string> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '3.0',
  info: '0.0',
};
const CONFIG_PROJECT = 'default';

export function toSarif(scans: readonly ScanJson[], opts: SarifOptions): Record<string, unknown> {
  const rules: Record<string, unknown>[] = [];
  const ruleIndex = new Map<string, number>();
  const results: Record<string, unknown>[] = [];
  for (const scan of scans) {
    for (const f of scan.findings) {
      if (!ruleIndex.has(f.rule)) {
        ruleIndex.set(f.rule, rules.length);
        rules.push(ruleOf(f));
      }
      results.push(resultOf(scan, f, ruleIndex.get(f.rule) ?? 0, opts));
    }
  }
  const notifications = scans
    .filter((s) => s.error !== null)
    .map((s) => ({
      level: 'warning',
      message: { text: escapeHidden(`${s.server_name}: ${s.error}`) },
    }));
  return {
    $schema:
      'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'spyglass', version: opts.toolVersion, rules } },
        invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }],
        results,
      },
    ],
  };
}

function ruleOf(f: FindingJson): Record<string, unknown> {
  const owasp = OWASP_TITLES[f.category];
  return {
    id: f.rule,
    name: f.rule.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) =>
      (c ?? '').toUpperCase(),
    ),
    shortDescription: { text: f.title },
    fullDescription: { text: escapeHidden(f.description) },
    help: {
      text: f.remediation,
      markdown: `**Remediation:** ${f.remediation}${owasp ? `\n\n${f.category}: ${owasp}` : ''}`,
    },
    defaultConfiguration: { level: LEVEL[f.severity] ?? 'warning' },
    properties: {
      tags: ['security', 'mcp', f.category, ...(owasp ? [owasp] : [])],
      'security-severity': SECURITY_SEVERITY[f.severity] ?? '5.5',
    },
  };
}

function resultOf(
  scan: ScanJson,
  f: FindingJson,
  index: number,
  opts: SarifOptions,
): Record<string, unknown> {
  const line =
    scan.project_id === CONFIG_PROJECT ? opts.serverLines.get(scan.server_name) : undefined;
  const server = escapeHidden(scan.server_name);
  const tool = f.tool_name === null ? null : escapeHidden(f.tool_name);
  const logical =
    tool !== null
      ? { name: tool, fullyQualifiedName: `${server}/${tool}`, kind: 'function' }
      : { name: server, fullyQualifiedName: server, kind: 'module' };
  const where = escapeHidden(
    [f.location, f.evidence ? `matched: ${f.evidence}` : null].filter(Boolean).join('; '),
  );
  return {
    ruleId: f.rule,
    ruleIndex: index,
    level: LEVEL[f.severity] ?? 'warning',
    message: {
      text: `${server}: ${escapeHidden(f.title)}${f.cve_id ? ` (${f.cve_id})` : ''}${where ? ` [${where}]` : ''}`,
    },
    locations: [
      {
        ...(opts.configUri && line !== undefined
          ? {
              physicalLocation: {
                artifactLocation: { uri: opts.configUri },
                region: { startLine: line },
              },
            }
          : {}),
        logicalLocations: [logical],
      },
    ],
    partialFingerprints: {
      spyglassFinding: createHash('sha256')
        .update(
          [scan.project_id, scan.server_name, f.rule, f.tool_name ?? '', f.location ?? ''].join(
            '\u0000',
          ),
        )
        .digest('hex'),
    },
    properties: {
      severity: f.severity,
      category: f.category,
      project_id: scan.project_id,
      server_name: server,
    },
  };
}
