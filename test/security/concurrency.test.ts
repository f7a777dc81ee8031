import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckTarget } from '../../src/model/health.ts';
import type { HttpExposure } from '../../src/security/types.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { call, expectStatus } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { stdioFixture, tempDir, writeConfig } from '../health/helpers.ts';
import { useRegistry } from './helpers.ts';

/**
 * A scan run observes at most security.concurrency servers at once, and the exposure hook (where
 * probeExposure is called once merged) runs inside that slot for remote servers only, its answer
 * reaching the checks as Observation.http.
 */
const ADMIN = `sg_${'7'.repeat(63)}b`;
let dir: string;
let fx: HttpFixtures;
let server: InProcessApp;

describe('scan concurrency and the exposure call site', () => {
  beforeAll(async () => {
    dir = tempDir();
    fx = await startHttpFixtures();
    const config = writeConfig(dir, {
      monitor: { enabled: false },
      security: { concurrency: 2 },
      servers: [
        ...['a', 'b', 'c', 'd'].map((n) => ({
          name: n,
          transport: 'streamable_http',
          url: `${fx.url}/ok/${n}/mcp`,
        })),
        stdioFixture('local', 'normal'),
      ],
    });
    server = await startInProcessApp({
      SPYGLASS_CONFIG: config,
      SPYGLASS_API_KEYS: ADMIN,
      SPYGLASS_RATE_LIMITS: 'off',
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await fx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds at most two servers at once and hands the exposure answer to the checks', async () => {
    let inFlight = 0;
    let most = 0;
    const asked: string[] = [];
    const held: (() => void)[] = [];
    const exposure = async (target: CheckTarget): Promise<HttpExposure> => {
      asked.push(target.name);
      most = Math.max(most, ++inFlight);
      // Each pair is released together: were the limit higher, a third would arrive while two are held.
      await new Promise<void>((resolve) => {
        held.push(resolve);
        if (held.length === 2 || asked.length === 4) held.splice(0).forEach((r) => r());
      });
      inFlight--;
      return {
        unauthenticated: true,
        oauthMetadata: false,
        foreignOriginAccepted: null,
        allowOriginStar: null,
        sessionIdInUrl: null,
      };
    };
    useRegistry(server.services, {
      checks: [
        ({ observation }) =>
          observation.http?.unauthenticated
            ? [
                {
                  severity: 'high',
                  category: 'OWASP-MCP-07',
                  rule: 'test.open',
                  kind: 'no_auth',
                  title: 'No authentication',
                  description: 'd',
                  remediation: 'r',
                  location: 'transport',
                },
              ]
            : [],
      ],
      projectChecks: [],
      exposure,
    });
    const scans = expectStatus(
      await call(server.httpUrl, 'POST', '/api/security/scan', { key: ADMIN, body: {} }),
      200,
      'scan',
    ).json as { server_name: string; error: string | null; findings: { rule: string }[] }[];
    expect(most).toBe(2);
    expect(asked.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(scans.map((s) => [s.server_name, s.error, s.findings.map((f) => f.rule)])).toEqual([
      ['a', null, ['test.open']],
      ['b', null, ['test.open']],
      ['c', null, ['test.open']],
      ['d', null, ['test.open']],
      // stdio: no exposure requests, so nothing about the transport.
      ['local', null, []],
    ]);
  }, 60_000);
});
