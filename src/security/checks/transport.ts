import { hasAuthConfigured } from '../../scoring/auth-configured.ts';
import type { Check, Finding } from '../types.ts';
import { findingOf, isLoopbackHost, parseUrl, type Rule } from './rule.ts';

/**
 * OWASP-MCP-07 from the configuration and Observation.http (exposure.ts). `auth.none` is the
 * "no authentication configured" of docs/scorecards.md#dimensions: exactly one per server without credentials, kind `no_auth`
 * so the scorecard deducts once; its severity says how exposed that leaves the server.
 */
const base = { category: 'OWASP-MCP-07', kind: 'owasp' } as const;
export const TRANSPORT_RULES = {
  plaintext: {
    ...base,
    id: 'transport.plaintext',
    title: 'Remote server over plain HTTP',
    remediation:
      'Serve it over https://; anyone on the network path can read and change requests, tool results and credentials.',
  },
  none: {
    ...base,
    kind: 'no_auth',
    id: 'auth.none',
    title: 'No authentication configured',
    remediation:
      'Protect the server (OAuth per the MCP authorization spec, or a bearer token / API key) and configure the credential in servers[].headers (HTTP) or servers[].env (stdio).',
  },
  notEnforced: {
    ...base,
    id: 'auth.not-enforced',
    title: 'Server answers without the configured credentials',
    remediation:
      'The server accepted initialize and tools/list with the credentials left out: enforce authentication on every request.',
  },
  rebinding: {
    ...base,
    id: 'transport.dns-rebinding',
    title: 'Server accepts requests from foreign web origins',
    remediation:
      'Validate Origin and Host (the MCP SDK: enableDnsRebindingProtection with allowedHosts / allowedOrigins), bind to 127.0.0.1 and do not send Access-Control-Allow-Origin: *.',
  },
  sseSession: {
    ...base,
    id: 'transport.sse-session-in-url',
    title: 'Session id carried in the URL (legacy SSE)',
    remediation:
      'Move to the streamable HTTP transport, which carries the session in the Mcp-Session-Id header; URLs with session ids end up in logs.',
  },
} satisfies Record<string, Rule>;

export const transportCheck: Check = ({ target, observation }) => {
  const out: Finding[] = [];
  const url = parseUrl(target.url);
  const remote = target.transport !== 'stdio' && url !== null;
  const loopback = url !== null && isLoopbackHost(url.hostname);
  const http = observation.http;
  if (remote && url.protocol === 'http:' && !loopback) {
    out.push(
      findingOf(TRANSPORT_RULES.plaintext, {
        severity: 'high',
        location: 'url',
        evidence: `${url.protocol}//${url.host}`,
        description: `The server ${url.host} is reached over unencrypted http://.`,
      }),
    );
  }
  if (!hasAuthConfigured(target)) {
    const openRemote = remote && !loopback && http?.unauthenticated === true;
    const where =
      target.transport === 'stdio'
        ? 'a local process (stdio) started without any credential-like environment variable'
        : loopback
          ? `a loopback server (${url?.host ?? ''}) configured without credentials`
          : `a remote server configured without credentials${http?.unauthenticated === true ? ' that answered initialize and tools/list' : ''}`;
    const oauth =
      http?.oauthMetadata === true
        ? ' It publishes OAuth protected-resource metadata, so it may support OAuth that is not configured here.'
        : '';
    out.push(
      findingOf(TRANSPORT_RULES.none, {
        severity: openRemote ? 'high' : 'medium',
        location: target.transport === 'stdio' ? 'env' : 'headers',
        evidence: null,
        description: `No authentication is configured: ${where}.${oauth}`,
      }),
    );
  } else if (remote && http?.unauthenticated === true) {
    out.push(
      findingOf(TRANSPORT_RULES.notEnforced, {
        severity: loopback ? 'medium' : 'high',
        location: 'headers',
        evidence: null,
        description: 'The server listed its tools to a request without the configured credentials.',
      }),
    );
  }
  if (remote && (http?.foreignOriginAccepted === true || http?.allowOriginStar === true)) {
    const facts = [
      http.foreignOriginAccepted === true
        ? 'answered an initialize sent with Origin: http://evil.invalid'
        : null,
      http.allowOriginStar === true ? 'sent Access-Control-Allow-Origin: *' : null,
    ].filter((x) => x !== null);
    out.push(
      findingOf(TRANSPORT_RULES.rebinding, {
        severity: loopback ? 'high' : 'medium',
        location: 'transport',
        evidence: facts.join('; '),
        description: `The server ${facts.join(' and ')}${loopback ? ': any web page the user opens can reach this local server through DNS rebinding' : ''}.`,
      }),
    );
  }
  if (remote && http?.sessionIdInUrl === true) {
    out.push(
      findingOf(TRANSPORT_RULES.sseSession, {
        severity: 'low',
        location: 'transport',
        evidence: 'endpoint event URI has a sessionId query parameter',
        description: 'The legacy SSE endpoint hands out its session id in the message URL.',
      }),
    );
  }
  return out;
};
