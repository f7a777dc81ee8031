import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckTarget } from '../../src/model/health.ts';
import { createGuardedFetch } from '../../src/net/guarded-fetch.ts';
import { createOutboundPolicy } from '../../src/net/outbound-policy.ts';
import { transportCheck } from '../../src/security/checks/index.ts';
import { probeExposure } from '../../src/security/exposure.ts';
import { observe } from '../helpers/observe.ts';
import type { HttpExposure } from '../../src/security/types.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import {
  BEARER_TOKEN,
  startSurfaceHttp,
  type SurfaceHttp,
} from '../fixtures/mcp/surface/http-server.ts';

/**
 * The exposure probe against SDK-built streamable HTTP servers on 127.0.0.1: one that refuses
 * foreign origins, one that wants a bearer token, one that accepts anything and says so with
 * `Access-Control-Allow-Origin: *`, and one that ignores the credentials it is given.
 */
let fx: SurfaceHttp;
let hanging: HttpFixtures;

beforeAll(async () => {
  [fx, hanging] = await Promise.all([startSurfaceHttp(), startHttpFixtures()]);
});

afterAll(async () => {
  await Promise.all([fx?.close(), hanging?.close()]);
});

const target = (path: string, headers?: Record<string, string>): CheckTarget => ({
  projectId: 'default',
  name: path.split('/')[1] ?? 'x',
  transport: 'streamable_http',
  url: `${fx.url}${path}`,
  headers,
  timeoutSeconds: 5,
  source: 'config',
});

/** What the scan does: observe with the configured credentials, probe, then judge. */
async function scan(t: CheckTarget) {
  const observation = await observe(t);
  const http = await probeExposure(t, { timeoutMs: 5000, healthOk: observation.reachable });
  return {
    http,
    findings: transportCheck({
      target: t,
      observation: { ...observation, http },
      peers: [],
      pin: null,
      now: new Date(),
    }),
  };
}

describe('probeExposure', () => {
  it('a server with DNS-rebinding protection refuses the foreign Origin and is not flagged for it', async () => {
    const { http, findings } = await scan(target('/guarded/mcp'));
    expect(http.foreignOriginAccepted).toBe(false);
    expect(http.allowOriginStar).toBe(false);
    expect(findings.map((f) => f.rule)).not.toContain('transport.dns-rebinding');
    // Still nothing configured to authenticate with: one no_auth finding, medium because it is loopback.
    expect(findings.filter((f) => f.kind === 'no_auth')).toEqual([
      expect.objectContaining({ rule: 'auth.none', severity: 'medium', category: 'OWASP-MCP-07' }),
    ]);
  });

  it('a bearer-protected server is not unauthenticated, publishes its metadata, and has no auth finding when the token is configured', async () => {
    const { http, findings } = await scan(
      target('/bearer/mcp', { Authorization: `Bearer ${BEARER_TOKEN}` }),
    );
    expect(http).toMatchObject<Partial<HttpExposure>>({
      unauthenticated: false,
      oauthMetadata: true,
      foreignOriginAccepted: false,
    });
    expect(findings).toEqual([]);
  });

  it('an open stateful server: foreign Origin answered, wildcard CORS, session deleted afterwards', async () => {
    const before = fx.origins.length;
    const { http, findings } = await scan(target('/open/mcp'));
    expect(http).toMatchObject<Partial<HttpExposure>>({
      foreignOriginAccepted: true,
      allowOriginStar: true,
      unauthenticated: true,
      oauthMetadata: false,
      sessionIdInUrl: null,
    });
    expect(fx.origins.slice(before)).toContain('http://evil.invalid');
    // The health check's and the probe's sessions are both gone.
    expect(fx.sessions()).toBe(0);
    const rebinding = findings.find((f) => f.rule === 'transport.dns-rebinding');
    expect(rebinding).toMatchObject({
      severity: 'high',
      category: 'OWASP-MCP-07',
      kind: 'owasp',
      location: 'transport',
    });
    expect(rebinding?.evidence).toContain('Access-Control-Allow-Origin: *');
  });

  it('configured credentials that the server does not need are reported as not enforced', async () => {
    const { http, findings } = await scan(
      target('/any-auth/mcp', { Authorization: 'Bearer not-checked-by-anyone-1234' }),
    );
    expect(http.unauthenticated).toBe(true);
    expect(findings.find((f) => f.rule === 'auth.not-enforced')).toMatchObject({
      severity: 'medium',
      kind: 'owasp',
    });
    expect(findings.some((f) => f.kind === 'no_auth')).toBe(false);
  });

  it('a guarded fetch that refuses loopback decides nothing, and says nothing the server answered', async () => {
    const refusing = createGuardedFetch(createOutboundPolicy([]));
    const http = await probeExposure(target('/open/mcp'), {
      timeoutMs: 2000,
      guardedFetch: refusing,
    });
    expect(http).toEqual({
      unauthenticated: null,
      oauthMetadata: null,
      foreignOriginAccepted: null,
      allowOriginStar: null,
      sessionIdInUrl: null,
    });
  });

  it('a server that never answers is bounded by the timeout, and an abort ends the probe at once', async () => {
    const slow: CheckTarget = { ...target('/x'), url: `${hanging.url}/hang/1/mcp` };
    // The fixture never answers: the probe returning at all shows its questions (origin, no
    // credentials, two well-known paths) are bounded; none is left open at the fixture.
    const http = await probeExposure(slow, { timeoutMs: 300 });
    expect(http.foreignOriginAccepted).toBeNull();
    expect(http.unauthenticated).toBeNull();
    await expect.poll(() => hanging.hanging()).toBe(0);

    const ctrl = new AbortController();
    const aborted = probeExposure(slow, { timeoutMs: 60_000, signal: ctrl.signal });
    ctrl.abort();
    await expect(aborted).resolves.toMatchObject({
      foreignOriginAccepted: null,
      unauthenticated: null,
    });
  });

  it('stdio targets are not probed', async () => {
    const http = await probeExposure(
      {
        projectId: 'default',
        name: 's',
        transport: 'stdio',
        command: 'true',
        timeoutSeconds: 1,
        source: 'config',
      },
      { timeoutMs: 1000 },
    );
    expect(Object.values(http).every((v) => v === null)).toBe(true);
  });
});
