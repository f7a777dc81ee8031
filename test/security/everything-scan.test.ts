import { readFileSync, rmSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectStatus } from '../helpers/auth.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startEverything, tempDir, writeConfig, type Everything } from '../health/helpers.ts';

/**
 * The whole scan as a user gets it: the real server-everything over stdio (launched the way its
 * README says, `npx -y`, which resolves to the installed devDependency) and streamable HTTP, plus an
 * `mcp-remote@0.1.15` launch that cannot start here, all scanned through the running server with
 * the real checks, read back over REST, graded by the scorecard, and exported as SARIF.
 */
const ADMIN = `sg_${'7'.repeat(63)}b`;
const SCHEMA = JSON.parse(
  readFileSync(new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
let dir: string;
let config: string;
let http: Everything;
let server: TestServer;
let results: any[];

beforeAll(async () => {
  dir = tempDir();
  http = await startEverything('streamableHttp');
  config = writeConfig(dir, {
    monitor: { enabled: false },
    servers: [
      {
        name: 'everything-stdio',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'],
        timeout_seconds: 60,
      },
      { name: 'everything-http', transport: 'streamable_http', url: http.url },
      // PATH leads nowhere, so nothing is downloaded or run: the launch line alone names the package.
      {
        name: 'remote-bridge',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'mcp-remote@0.1.15', 'https://mcp.example.invalid/sse'],
        env: { PATH: '/nonexistent' },
        timeout_seconds: 5,
      },
      {
        name: 'remote-bridge-fixed',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'mcp-remote@0.1.16', 'https://mcp.example.invalid/sse'],
        env: { PATH: '/nonexistent' },
        timeout_seconds: 5,
      },
    ],
  });
  server = await startTestServer({
    SPYGLASS_CONFIG: config,
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
  });
  results = expectStatus(
    await call(server.httpUrl, 'POST', '/api/security/scan', { key: ADMIN }),
    200,
    'scan',
  ).json;
}, 180_000);

afterAll(async () => {
  await server?.dispose();
  await http?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const resultOf = (name: string) => results.find((r) => r.server_name === name);
/** Tool poisoning proper: any poisoning rule, or anything the scorecard counts as confirmed poisoning. */
const poisoning = (r: any) =>
  r.findings.filter((f: any) => f.rule.startsWith('poisoning.') || f.kind === 'poisoning');
const rules = (name: string) =>
  resultOf(name)
    .findings.map((f: any) => f.rule)
    .sort();

describe('a security scan of real servers through the running service', () => {
  it('returns one result per configured server', () => {
    expect(results.map((r) => r.server_name).sort()).toEqual([
      'everything-http',
      'everything-stdio',
      'remote-bridge',
      'remote-bridge-fixed',
    ]);
    for (const r of results) expect(r.findings_count).toBe(r.findings.length);
  });

  it('server-everything over stdio: the environment-dumping tool, the unpinned npx launch, no credentials, and no poisoning', () => {
    const r = resultOf('everything-stdio');
    expect(r.error).toBeNull();
    expect(r.findings).toContainEqual(
      expect.objectContaining({
        rule: 'secrets.env-dump',
        category: 'OWASP-MCP-01',
        severity: 'high',
        tool_name: 'get-env',
        owasp_title: 'Token Mismanagement & Secret Exposure',
      }),
    );
    expect(r.findings).toContainEqual(
      expect.objectContaining({
        rule: 'supply.unpinned',
        category: 'OWASP-MCP-04',
        severity: 'medium',
        location: expect.stringMatching(/^args/),
      }),
    );
    expect(r.findings).toContainEqual(
      expect.objectContaining({ rule: 'auth.none', category: 'OWASP-MCP-07' }),
    );
    expect(poisoning(r)).toEqual([]);
    expect(r.high_count).toBe(r.findings.filter((f: any) => f.severity === 'high').length);
  });

  it('server-everything over streamable HTTP: a foreign Origin is answered, nothing authenticates, no poisoning', () => {
    const r = resultOf('everything-http');
    expect(r.error).toBeNull();
    expect(r.findings).toContainEqual(
      expect.objectContaining({
        rule: 'transport.dns-rebinding',
        category: 'OWASP-MCP-07',
        severity: 'high',
      }),
    );
    expect(r.findings).toContainEqual(expect.objectContaining({ rule: 'auth.none' }));
    expect(r.findings).toContainEqual(
      expect.objectContaining({ rule: 'secrets.env-dump', tool_name: 'get-env' }),
    );
    expect(rules('everything-http')).not.toContain('supply.unpinned');
    expect(poisoning(r)).toEqual([]);
    // The same server twice in one project: every tool name collides, which the scan says (medium, not poisoning).
    expect(r.findings).toContainEqual(
      expect.objectContaining({
        rule: 'shadowing.collision',
        tool_name: 'get-env',
        severity: 'medium',
        kind: 'owasp',
      }),
    );
  });

  it('mcp-remote@0.1.15 is critical (CVE-2025-6514) even though it could not start; 0.1.16 is not', () => {
    const bad = resultOf('remote-bridge');
    expect(bad.error).toMatch(/could not start|command not found|exited/);
    expect(bad.findings).toContainEqual(
      expect.objectContaining({
        rule: 'supply.cve',
        cve_id: 'CVE-2025-6514',
        severity: 'critical',
        category: 'OWASP-MCP-04',
      }),
    );
    expect(bad.highest_severity).toBe('critical');
    expect(bad.critical_count).toBeGreaterThanOrEqual(1);
    const fixed = resultOf('remote-bridge-fixed');
    expect(fixed.findings.filter((f: any) => f.rule === 'supply.cve')).toEqual([]);
  });

  it('reads the latest scan back, and the scorecard caps the vulnerable server at F', async () => {
    const latest = expectStatus(
      await call(server.httpUrl, 'GET', '/api/security/servers/remote-bridge', { key: ADMIN }),
      200,
      'latest',
    ).json;
    expect(latest.findings.map((f: any) => f.rule)).toEqual(
      resultOf('remote-bridge').findings.map((f: any) => f.rule),
    );
    const card = expectStatus(
      await call(server.httpUrl, 'GET', '/api/health/servers/remote-bridge/scorecard', {
        key: ADMIN,
      }),
      200,
      'scorecard',
    ).json;
    expect(card.grade).toBe('F');
    expect(card.dimensions.find((d: any) => d.name === 'security').raw_score).toBeLessThan(100);
  });

  it('exports the same scan as SARIF 2.1.0 that validates against the schema, failing at --fail-on critical', async () => {
    const out = await runCliInProcess(
      ['scan', '--url', server.httpUrl, '--api-key', ADMIN, '--sarif', '--fail-on', 'critical'],
      { SPYGLASS_CONFIG: config },
      dir,
    );
    expect(out.code, out.stderr).toBe(1);
    const sarif = JSON.parse(out.stdout);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const valid = ajv.validate(SCHEMA, sarif);
    expect(valid, JSON.stringify(ajv.errors?.slice(0, 5))).toBe(true);
    const ruleIds = sarif.runs[0].results.map((r: any) => r.ruleId);
    expect(ruleIds).toEqual(
      expect.arrayContaining(['secrets.env-dump', 'supply.cve', 'transport.dns-rebinding']),
    );
    const cve = sarif.runs[0].results.find((r: any) => r.ruleId === 'supply.cve');
    expect(cve.level).toBe('error');
    expect(cve.locations[0].physicalLocation.region.startLine).toBeGreaterThan(1);
  }, 120_000);
});
