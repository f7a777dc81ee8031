import type { CheckTarget } from '../../model/health.ts';
import type { Finding, Observation } from '../types.ts';
import type { PackageRef } from './launch-package.ts';
import { maskEvidence } from './mask.ts';
import { advisoriesFor, type AdvisoryDb } from './osv-types.ts';

/**
 * The launch hygiene rules of OWASP-MCP-04: code fetched fresh at every start (unpinned), scripts
 * piped from the network into a shell, shell wrappers that hide what runs, and the deprecated
 * protocol version or transport.
 */
const CATEGORY = 'OWASP-MCP-04';

export function unpinnedFindings(ref: PackageRef, db: AdvisoryDb): Finding[] {
  if (ref.launcher === null || ref.source !== 'command') return [];
  if (ref.versionKind !== 'none' && ref.versionKind !== 'tag' && ref.versionKind !== 'range')
    return [];
  const what =
    ref.versionKind === 'none'
      ? 'no version'
      : ref.versionKind === 'tag'
        ? `the tag "${ref.version}"`
        : `the range "${ref.version}"`;
  const known = advisoriesFor(db, ref.ecosystem, ref.name).length;
  return [
    {
      severity: 'medium',
      category: CATEGORY,
      rule: 'supply.unpinned',
      kind: 'owasp',
      title: `${ref.name} is started unpinned through ${ref.launcher}`,
      description:
        `The launch command names ${ref.name} with ${what}, so ${ref.launcher} resolves and runs whatever the registry serves at each start: ` +
        `a compromised or malicious release is picked up without review, and CVE lookup cannot tell which version runs.` +
        (known > 0 ? ` ${known} advisory(ies) exist for ${ref.name}.` : ''),
      remediation: `Pin an exact reviewed version (${ref.ecosystem === 'npm' ? `${ref.name}@<version>` : `${ref.name}==<version>`}) or install the package and start it from node_modules.`,
      toolName: null,
      cveId: null,
      location: ref.location,
      evidence: maskEvidence(ref.spec),
    },
  ];
}

// A download piped into an interpreter: `curl -fsSL https://x/install.sh | sh`, `iwr ... | iex`.
const PIPE_TO_SHELL =
  /\b(curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|]*\|\s*(sudo\s+)?(sh|bash|zsh|dash|ksh|python[\d.]*|node|perl|ruby|iex|invoke-expression|powershell|pwsh)\b/i;
const SHELL_C = /^(sh|bash|zsh|dash|ash|ksh)$/;

export function pipeToShellFindings(target: CheckTarget): Finding[] {
  if (target.transport !== 'stdio' || !target.command) return [];
  const words = [target.command, ...(target.args ?? [])];
  const text = words.join(' ');
  const program = (target.command.split(/[\\/]/).pop() ?? '').toLowerCase();
  const base = {
    category: CATEGORY,
    kind: 'owasp' as const,
    severity: 'high' as const,
    rule: 'supply.pipe-to-shell',
    toolName: null,
    cveId: null,
    evidence: maskEvidence(text),
  };
  if (PIPE_TO_SHELL.test(text)) {
    return [
      {
        ...base,
        location: 'command',
        title: 'The launch command pipes a download into an interpreter',
        description:
          'The server is started by fetching a script from the network and running it directly: whoever controls that URL (or the network path to it) decides what runs, and nothing pins or verifies it.',
        remediation:
          'Download the installer once, review it, verify its checksum, and start the installed server directly.',
      },
    ];
  }
  const flag = (target.args ?? []).findIndex((a) => /^-[a-z]*c$/.test(a));
  if (SHELL_C.test(program) && flag >= 0) {
    return [
      {
        ...base,
        location: `args[${flag}]`,
        title: `The server is started through a ${program} -c wrapper`,
        description: `The launch goes through a shell script string, which hides the real command from review and from package mapping, and makes the launch depend on shell expansion and the environment.`,
        remediation:
          'Put the real program in `command` and its arguments in `args`, without a shell in between.',
      },
    ];
  }
  return [];
}

export function legacyProtocolFindings(target: CheckTarget, observation: Observation): Finding[] {
  const base = {
    severity: 'info' as const,
    category: CATEGORY,
    rule: 'supply.legacy-protocol',
    kind: 'owasp' as const,
    toolName: null,
    cveId: null,
  };
  const findings: Finding[] = [];
  if (observation.protocolVersion === '2024-11-05') {
    findings.push({
      ...base,
      location: 'protocolVersion',
      evidence: observation.protocolVersion,
      title: 'The server negotiates the 2024-11-05 protocol version',
      description:
        'The server only speaks the first MCP protocol revision, which predates the authorization, tool annotation and transport security changes of later revisions; an outdated SDK is the usual cause.',
      remediation:
        'Upgrade the server (or its MCP SDK) to a release that supports a current protocol version.',
    });
  }
  if (target.transport === 'sse') {
    findings.push({
      ...base,
      location: 'transport',
      evidence: target.url ? maskEvidence(target.url) : null,
      title: 'The server uses the deprecated HTTP+SSE transport',
      description:
        'HTTP+SSE was replaced by Streamable HTTP in protocol revision 2025-03-26; it carries the session id in the URL and is kept only for compatibility.',
      remediation:
        'Move the server to the Streamable HTTP transport and configure it with transport: streamable_http.',
    });
  }
  return findings;
}
