import { addressOfHost } from '../../net/outbound-policy.ts';
import type { Finding, FindingKind, Severity } from '../types.ts';

/**
 * What the surface checks share: a rule's fixed facts (id, category, kind, remediation), a finding
 * built from them, secret masking and the loopback test. A rule's default severity can be raised or
 * lowered per finding (auth.none depends on where the server is), so the severity travels separately.
 */
export interface Rule {
  id: string;
  category: `OWASP-MCP-${string}`;
  kind: FindingKind;
  title: string;
  remediation: string;
}

export interface Hit {
  severity: Severity;
  description: string;
  toolName?: string | null;
  location?: string | null;
  evidence?: string | null;
}

export function findingOf(rule: Rule, hit: Hit): Finding {
  return {
    severity: hit.severity,
    category: rule.category,
    rule: rule.id,
    kind: rule.kind,
    title: rule.title,
    description: hit.description,
    remediation: rule.remediation,
    toolName: hit.toolName ?? null,
    location: hit.location ?? null,
    evidence:
      hit.evidence === undefined || hit.evidence === null ? null : hit.evidence.slice(0, 200),
  };
}

/** Key prefixes that name the provider without revealing anything of the key. */
const KNOWN_PREFIX = /^(?:sk-(?:proj-|ant-)?|gh[pousr]_|github_pat_|xox[abposr]-|AKIA|ASIA|eyJ)/;

/**
 * `sk-…abcd`: a known provider prefix and the last 4 characters, enough to find the key in a
 * vault; anything else (passwords) shows 2 + 2 characters; short values show nothing.
 */
export function mask(secret: string): string {
  const s = secret.trim();
  const bearer = /^Bearer\s+/i.exec(s);
  if (bearer) return `Bearer ${mask(s.slice(bearer[0].length))}`;
  if (s.startsWith('-----BEGIN')) return s.slice(0, s.indexOf('-----', 5) + 5);
  if (s.length < 12) return '…';
  const known = KNOWN_PREFIX.exec(s)?.[0];
  return known ? `${known}…${s.slice(-4)}` : `${s.slice(0, 2)}…${s.slice(-2)}`;
}

/** 127.0.0.0/8, ::1, `localhost` and `*.localhost`: a server only this machine can reach (by name, no DNS). */
export function isLoopbackHost(hostname: string): boolean {
  const addr = addressOfHost(hostname);
  if (addr === null) return false;
  const v4 = addr.replace(/^::ffff:/i, '');
  return /^127\.\d+\.\d+\.\d+$/.test(v4) || addr === '::1';
}

/** The URL of a remote target, or null (stdio, or not parseable: the health check reports that). */
export function parseUrl(raw: string | undefined): URL | null {
  if (!raw) return null;
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** A tool's name and description as strings (tools/list is untrusted input). */
export function toolText(tool: Record<string, unknown>): { name: string; description: string } {
  return {
    name: typeof tool.name === 'string' ? tool.name : '',
    description: typeof tool.description === 'string' ? tool.description : '',
  };
}

/** `deleteFile`, `delete-file`, `delete_file`, `files.delete` → ['delete', 'file'...] in lower case. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}
