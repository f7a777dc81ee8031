import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { call, expectStatus } from '../helpers/auth.ts';
import { poolCliStores, runCliInProcess } from '../helpers/cli.ts';
import { freePort } from '../helpers/free-port.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tempDir, writeConfig } from '../health/helpers.ts';
import { configCheck, toolDescriptionCheck, useRegistry } from './helpers.ts';

/**
 * `spyglass scan` as a user runs it: against a running server with findings produced by test
 * checks through the real service (--sarif validated against the official SARIF 2.1.0 schema,
 * --json, --fail-on exit codes, usage errors), and locally from spyglass.yaml (the table).
 */
const ADMIN = `sg_${'9'.repeat(63)}a`;
const SCHEMA = JSON.parse(
  readFileSync(new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
let dir: string;
let config: string;
let fx: HttpFixtures;
let server: TestServer;
// A local command runs on a pooled embedded database (test/helpers/cli.ts), not an open of its own.
poolCliStores();

describe('spyglass scan', () => {
  beforeAll(async () => {
    dir = tempDir();
    fx = await startHttpFixtures();
    config = writeConfig(dir, {
      monitor: { enabled: false },
      network: { allow_private_targets: ['127.0.0.0/8'] },
      servers: [
        { name: 'alpha', transport: 'streamable_http', url: `${fx.url}/ok/alpha/mcp` },
        {
          name: 'down',
          transport: 'streamable_http',
          url: `http://127.0.0.1:${await freePort()}/mcp`,
          timeout_seconds: 2,
        },
      ],
    });
    server = await startTestServer({
      SPYGLASS_CONFIG: config,
      SPYGLASS_API_KEYS: ADMIN,
      SPYGLASS_RATE_LIMITS: 'off',
    });
    expectStatus(
      await call(server.httpUrl, 'PUT', '/api/servers/metadata/cat?project_id=default', {
        key: ADMIN,
        body: { transport: 'sse', url: `${fx.url}/ok/cat/sse` },
      }),
      200,
      'catalog',
    );
    useRegistry(server.services, {
      checks: [toolDescriptionCheck, configCheck],
      projectChecks: [],
    });
  }, 60_000);

  afterAll(async () => {
    await server?.dispose();
    await fx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const remote = (...args: string[]) =>
    runCliInProcess(
      ['scan', '--url', server.httpUrl, '--api-key', ADMIN, ...args],
      { SPYGLASS_CONFIG: config },
      dir,
    );

  it('--sarif is valid SARIF 2.1.0 pointing at the spyglass.yaml entry; --fail-on high exits 1', async () => {
    const r = await remote('--sarif', '--fail-on', 'high');
    expect(r.stderr).toMatch(/down: .*only config-based checks ran/);
    expect(r.code).toBe(1);
    const sarif = JSON.parse(r.stdout);
    const ajv = new Ajv({ strict: false, allErrors: true });
    // A CommonJS module: its default export is the exports object, whose `default` is the plugin.
    addFormats.default(ajv);
    const validate = ajv.compile(SCHEMA);
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);

    const run = sarif.runs[0];
    const rules = run.tool.driver.rules;
    expect(rules.map((x: { id: string }) => x.id)).toEqual(['test.tool-seen', 'test.plain-http']);
    expect(rules[0]).toMatchObject({
      shortDescription: { text: 'Tool seen by the scan' },
      help: { text: 'Nothing to do: this is a test rule.' },
      defaultConfiguration: { level: 'error' },
      properties: { tags: expect.arrayContaining(['OWASP-MCP-03', 'Tool Poisoning']) },
    });
    const lines = readFileSync(config, 'utf8').split('\n');
    const alphaLine = lines.findIndex((l) => l.includes('- name: alpha')) + 1;
    const alphaTool = run.results.find(
      (x: any) => x.locations[0].logicalLocations[0].fullyQualifiedName === 'alpha/read_file',
    );
    expect(alphaTool).toMatchObject({ ruleId: 'test.tool-seen', level: 'error' });
    expect(alphaTool.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'spyglass.yaml' },
      region: { startLine: alphaLine },
    });
    const plain = run.results.find(
      (x: any) =>
        x.ruleId === 'test.plain-http' && x.locations[0].logicalLocations[0].name === 'down',
    );
    expect(plain.level).toBe('warning');
    expect(plain.locations[0].physicalLocation.region.startLine).toBe(
      lines.findIndex((l) => l.includes('- name: down')) + 1,
    );
    // A catalog server has no line in the config file: only its logical location.
    const cat = run.results.find(
      (x: any) => x.locations[0].logicalLocations[0].fullyQualifiedName === 'cat/ping',
    );
    expect(cat.locations[0].physicalLocation).toBeUndefined();
    expect(run.invocations[0].toolExecutionNotifications[0].message.text).toMatch(/^down: /);
  }, 60_000);

  it('--json prints the scan results; --fail-on critical passes when nothing is critical', async () => {
    const r = await remote('--json', '--fail-on', 'critical', '--server', 'alpha');
    expect(r.code).toBe(0);
    const scans = JSON.parse(r.stdout);
    expect(scans).toHaveLength(1);
    expect(scans[0]).toMatchObject({
      server_name: 'alpha',
      project_id: 'default',
      error: null,
      findings_count: 3,
      high_count: 2,
      highest_severity: 'high',
    });
    expect(scans[0].findings[0]).toMatchObject({
      rule: 'test.tool-seen',
      owasp_title: 'Tool Poisoning',
      location: 'tools.read_file.description',
    });
  }, 60_000);

  it('usage errors exit 2 before scanning', async () => {
    const bad = await remote('--fail-on', 'severe');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--fail-on must be one of critical, high, medium, low/);
    const both = await remote('--json', '--sarif');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/cannot be combined/);
  }, 60_000);

  it('scans locally from spyglass.yaml and prints a table', async () => {
    // A pooled embedded database (test/helpers/cli.ts): the first start is
    // test/startup/startup-messages.test.ts's, the open of a data directory test/cli's.
    const data = join(dir, 'scan-data');
    try {
      const r = await runCliInProcess(
        ['scan', '--server', 'alpha'],
        { SPYGLASS_CONFIG: config, SPYGLASS_DATA_DIR: data, SPYGLASS_URL: '' },
        dir,
      );
      expect(r.stderr).not.toMatch(/error|failed/i);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/server_name.*highest_severity/);
      // The real checks: the fixture answers a foreign Origin (high) and needs no credentials.
      expect(r.stdout).toMatch(/alpha.*default.*high.*\d/);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);
});
