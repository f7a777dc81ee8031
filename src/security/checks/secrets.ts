import type { Check, Finding } from '../types.ts';
import { findingOf, isLoopbackHost, mask, parseUrl, toolText, type Rule } from './rule.ts';
import {
  CREDENTIAL_HEADER,
  CREDENTIAL_NAME,
  findSecret,
  isPlaceholder,
  secretInUrl,
} from './secret-patterns.ts';

/**
 * OWASP-MCP-01 from the launch spec and the tool list: credentials written into args, env, the URL
 * or plaintext headers, and tools whose purpose is to hand the server's environment to the model.
 * Evidence is always masked; the secret itself never leaves this file.
 */
const base = { category: 'OWASP-MCP-01', kind: 'owasp' } as const;
export const SECRET_RULES = {
  args: {
    ...base,
    id: 'secrets.args',
    title: 'Credential in launch arguments',
    remediation:
      'Pass the credential through servers[].env (or a file the server reads) instead of the command line, and rotate it: arguments are visible to every local user in the process list and end up in shell history and logs.',
  },
  env: {
    ...base,
    id: 'secrets.env',
    title: 'Provider credential written in the server environment',
    remediation:
      'Keep the configuration file out of version control and readable only by the service, prefer a short-lived or narrowly scoped key, and rotate this one if the file was ever shared.',
  },
  url: {
    ...base,
    id: 'secrets.url',
    title: 'Credential in the server URL',
    remediation:
      'Send the credential in an Authorization header (servers[].headers) instead of the URL: URLs are logged by proxies, servers and browsers. Rotate it.',
  },
  headers: {
    ...base,
    id: 'secrets.headers',
    title: 'Credential sent in plaintext over the network',
    remediation:
      'Use https:// for this server; until then, treat the credential as exposed to anyone on the network path and rotate it.',
  },
  envDump: {
    ...base,
    id: 'secrets.env-dump',
    title: 'Tool returns the server environment',
    remediation:
      'Remove or disable this tool in production: everything in the server process environment, API keys included, reaches the model and its transcripts.',
  },
} satisfies Record<string, Rule>;

/** A flag whose value is a credential: `--api-key=…`, `--token …`. */
const FLAG = /^--?([A-Za-z][A-Za-z0-9_-]*)(?:=(.*))?$/s;

function argsFindings(args: readonly string[]): Finding[] {
  // Keyed by location: `--token ghp_…` is found both as a flag value and as a literal, reported once.
  const out = new Map<number, Finding>();
  args.forEach((arg, i) => {
    const literal = findSecret(arg);
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(arg) ? parseUrl(arg) : null;
    const inUrl = url ? secretInUrl(url) : null;
    const flag = FLAG.exec(arg);
    const next = args[i + 1];
    const inline = flag?.[2];
    const flagValue = flag
      ? (inline ?? (next !== undefined && !next.startsWith('-') ? next : undefined))
      : undefined;
    const flagName = flag?.[1] ?? '';
    const byFlag =
      CREDENTIAL_NAME.test(flagName.replace(/^.*[-_](?=(key|token|secret|password)$)/i, '')) &&
      flagValue !== undefined &&
      !isPlaceholder(flagValue) &&
      flagValue.length >= 8 &&
      !/^[./~]|\.(?:pem|key|json|txt)$/i.test(flagValue);
    const what = literal
      ? `a ${literal.name}`
      : inUrl
        ? `a URL with ${inUrl.what}`
        : byFlag
          ? `the value of --${flagName}`
          : null;
    if (!what) return;
    const at = !literal && !inUrl && inline === undefined ? i + 1 : i;
    if (out.has(at)) return;
    const value = literal?.match ?? inUrl?.value ?? flagValue ?? '';
    out.set(
      at,
      findingOf(SECRET_RULES.args, {
        severity: 'high',
        location: `args[${at}]`,
        evidence: mask(value),
        description: `Launch argument ${at} carries ${what}.`,
      }),
    );
  });
  return [...out.values()];
}

/** Tool names and descriptions that say the tool returns the environment (server-everything's `get-env`). */
const DUMP_NAME =
  /^(?:get|dump|print|list|show|read)[-_]?env(?:ironment)?(?:[-_]?var(?:iable)?s)?$|printenv/i;
const DUMP_TEXT =
  /\b(?:returns?|lists?|dumps?|prints?|shows?|reads?|exposes?|outputs?|gets?|retrieves?)\b[^.]{0,40}?(?:environment variables|env(?:ironment)? vars?\b|process\.env|os\.environ)|\bprintenv\b/i;

export const secretsCheck: Check = ({ target, observation }) => {
  const out = target.transport === 'stdio' ? argsFindings(target.args ?? []) : [];
  if (target.transport === 'stdio') {
    for (const [name, value] of Object.entries(target.env ?? {})) {
      const literal = findSecret(value);
      if (literal)
        out.push(
          findingOf(SECRET_RULES.env, {
            severity: 'medium',
            location: `env.${name}`,
            evidence: mask(literal.match),
            description: `Environment variable ${name} holds a ${literal.name}, written in the configuration in plaintext.`,
          }),
        );
    }
  }
  const url = parseUrl(target.url);
  const inUrl = url ? secretInUrl(url) : null;
  if (inUrl)
    out.push(
      findingOf(SECRET_RULES.url, {
        severity: 'high',
        location: 'url',
        evidence: mask(inUrl.value),
        description: `The server URL carries ${inUrl.what}.`,
      }),
    );
  if (url?.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    for (const [name, value] of Object.entries(target.headers ?? {})) {
      if (isPlaceholder(value) || !(CREDENTIAL_HEADER.test(name) || findSecret(value))) continue;
      out.push(
        findingOf(SECRET_RULES.headers, {
          severity: 'high',
          location: `headers.${name}`,
          evidence: mask(value),
          description: `Header ${name} is sent over plain http:// to ${url.hostname}, readable by anyone on the path.`,
        }),
      );
    }
  }
  for (const tool of observation.tools) {
    const { name, description } = toolText(tool);
    const byName = DUMP_NAME.test(name);
    const byText = DUMP_TEXT.exec(description);
    if (!byName && !byText) continue;
    out.push(
      findingOf(SECRET_RULES.envDump, {
        severity: 'high',
        toolName: name,
        location: byText ? `tools.${name}.description` : `tools.${name}`,
        evidence: byText ? byText[0] : name,
        description: `Tool ${name} appears to return the server's environment variables, which usually hold its credentials.`,
      }),
    );
  }
  return out;
};
