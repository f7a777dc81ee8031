import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckTarget } from '../../src/model/health.ts';
import { surfaceChecks } from '../../src/security/checks/index.ts';
import { probeExposure } from '../../src/security/exposure.ts';
import { observe } from '../helpers/observe.ts';
import type { Finding } from '../../src/security/types.ts';
import { EVERYTHING, startEverything, type Everything } from '../health/helpers.ts';

/** The real @modelcontextprotocol/server-everything, scanned the way a scan does it, on each transport. */
let http: Everything;
let sse: Everything;

beforeAll(async () => {
  [http, sse] = await Promise.all([startEverything('streamableHttp'), startEverything('sse')]);
}, 60_000);

afterAll(async () => {
  await Promise.all([http?.stop(), sse?.stop()]);
});

async function scan(target: CheckTarget): Promise<Finding[]> {
  const observation = await observe(target);
  expect(observation.reachable, observation.error ?? '').toBe(true);
  const exposure =
    target.transport === 'stdio'
      ? null
      : await probeExposure(target, { timeoutMs: 5000, healthOk: observation.reachable });
  const ctx = {
    target,
    observation: { ...observation, http: exposure },
    peers: [],
    pin: null,
    now: new Date(),
  };
  return surfaceChecks.flatMap((check) => check(ctx));
}

const base = { projectId: 'default', timeoutSeconds: 20, source: 'config' } as const;

describe('server-everything', () => {
  it('over stdio: get-env is a tool that hands the environment to the model', async () => {
    const findings = await scan({
      ...base,
      name: 'everything',
      transport: 'stdio',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
    });
    const dump = findings.filter((f) => f.rule === 'secrets.env-dump');
    expect(dump).toEqual([
      expect.objectContaining({
        toolName: 'get-env',
        severity: 'high',
        category: 'OWASP-MCP-01',
        kind: 'owasp',
        location: 'tools.get-env.description',
      }),
    ]);
    expect(dump[0]?.evidence).toMatch(/environment variables/i);
    // No credentials configured for a local process: docs/security.md's no_auth, at medium.
    expect(findings.filter((f) => f.kind === 'no_auth')).toEqual([
      expect.objectContaining({ rule: 'auth.none', severity: 'medium' }),
    ]);
    // Its tools are honestly annotated: no contradiction.
    expect(findings.map((f) => f.rule)).not.toContain('capability.annotation-contradiction');
  });

  it('over streamable HTTP: a foreign Origin is answered (DNS rebinding) and nothing authenticates', async () => {
    const findings = await scan({
      ...base,
      name: 'everything-http',
      transport: 'streamable_http',
      url: http.url,
    });
    expect(findings.find((f) => f.rule === 'transport.dns-rebinding')).toMatchObject({
      severity: 'high',
      category: 'OWASP-MCP-07',
      kind: 'owasp',
    });
    expect(findings.filter((f) => f.rule === 'auth.none')).toEqual([
      expect.objectContaining({ kind: 'no_auth', severity: 'medium', category: 'OWASP-MCP-07' }),
    ]);
    // Loopback http:// is not plaintext exposure.
    expect(findings.map((f) => f.rule)).not.toContain('transport.plaintext');
  });

  it('over legacy SSE: the session id travels in the message URL', async () => {
    const findings = await scan({
      ...base,
      name: 'everything-sse',
      transport: 'sse',
      url: sse.url,
    });
    expect(findings.find((f) => f.rule === 'transport.sse-session-in-url')).toMatchObject({
      severity: 'low',
      category: 'OWASP-MCP-07',
    });
    expect(findings.find((f) => f.rule === 'transport.dns-rebinding')).toMatchObject({
      severity: 'high',
    });
  });
});
