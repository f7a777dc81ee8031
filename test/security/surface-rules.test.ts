import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckTarget } from '../../src/model/health.ts';
import { SURFACE_RULES, surfaceChecks } from '../../src/security/checks/index.ts';
import { SHADOW_RULE } from '../../src/security/shadow-servers.ts';
import { fixtureArgs } from '../helpers/fixture-scripts.ts';
import { observe } from '../helpers/observe.ts';
import { OWASP_TITLES, type Finding, type Observation } from '../../src/security/types.ts';
import { SURFACE_TOOLS } from '../fixtures/mcp/surface/tools.ts';
import { tempDir } from '../health/helpers.ts';
import { securityDocSection } from './doc-section.ts';

/**
 * Every surface rule against a configuration written to trip it, and the look-alikes that must not:
 * the tool rules over a real stdio MCP server (the SDK fixture serving SURFACE_TOOLS), the launch-spec
 * and transport rules over server configurations as an operator writes them.
 */
const GH = `ghp_${'A1b2C3d4E5'.repeat(3)}Zz9Yy8`;
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const SK = `sk-proj-${'x7Y8z9W0'.repeat(4)}`;
const JWT =
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
let dir: string;
let tools: Observation;

beforeAll(async () => {
  dir = tempDir();
  const file = join(dir, 'tools.json');
  writeFileSync(file, JSON.stringify({ tools: SURFACE_TOOLS }));
  tools = await observe({
    projectId: 'default',
    name: 'fixture',
    transport: 'stdio',
    command: process.execPath,
    args: fixtureArgs('stdio-server'),
    env: { FIXTURE_TOOLS_FILE: file },
    timeoutSeconds: 20,
    source: 'config',
  });
  expect(tools.reachable, tools.error ?? '').toBe(true);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const unreachable: Observation = {
  reachable: false,
  error: 'not contacted',
  serverInfo: null,
  protocolVersion: null,
  instructions: null,
  capabilities: null,
  tools: [],
  prompts: null,
  resources: null,
  http: null,
};

function run(over: Partial<CheckTarget>, observation: Observation = unreachable): Finding[] {
  const target: CheckTarget = {
    projectId: 'default',
    name: 's',
    transport: 'stdio',
    command: 'npx',
    timeoutSeconds: 5,
    source: 'config',
    ...over,
  };
  return surfaceChecks.flatMap((c) =>
    c({ target, observation, peers: [], pin: null, now: new Date() }),
  );
}
const rules = (fs: Finding[]) => fs.map((f) => f.rule).filter((r) => r !== 'auth.none');
const byRule = (fs: Finding[], rule: string) => fs.filter((f) => f.rule === rule);

describe('OWASP-MCP-01 secrets', () => {
  it('credential literals and credential flags in stdio args, masked', () => {
    const found = byRule(
      run({
        args: [
          '-y',
          'server-github',
          `--token=${GH}`,
          '--github-token',
          GH,
          '--header',
          `Bearer ${JWT}`,
          '--api-key',
          'q9w8e7r6t5y4u3i2',
          `https://api.example.com/v1?apiKey=${SK}`,
        ],
      }),
      'secrets.args',
    );
    expect(found.map((f) => f.location)).toEqual([
      'args[2]',
      'args[4]',
      'args[6]',
      'args[8]',
      'args[9]',
    ]);
    for (const f of found)
      expect(f).toMatchObject({ severity: 'high', category: 'OWASP-MCP-01', kind: 'owasp' });
    expect(found[0]?.evidence).toBe(`ghp_…${GH.slice(-4)}`);
    expect(found[2]?.evidence).toBe(`Bearer eyJ…${JWT.slice(-4)}`);
    const all = JSON.stringify(found);
    for (const secret of [GH, JWT, SK, 'q9w8e7r6t5y4u3i2']) expect(all).not.toContain(secret);
  });

  it('provider keys in env values; placeholders, empty values and ordinary settings are not secrets', () => {
    const found = run({
      env: {
        GITHUB_TOKEN: GH,
        AWS_ACCESS_KEY_ID: AWS,
        SLACK: 'xoxb-123456789012-abcdefABCDEF',
        KEY: '-----BEGIN RSA PRIVATE KEY-----\nMIIE...',
        OPENAI_API_KEY: '${OPENAI_API_KEY}',
        OTHER: '<token>',
        EMPTY: '',
        DEBUG: '1',
        HOME_URL: 'https://example.com',
      },
    });
    const env = byRule(found, 'secrets.env');
    expect(env.map((f) => f.location).sort()).toEqual([
      'env.AWS_ACCESS_KEY_ID',
      'env.GITHUB_TOKEN',
      'env.KEY',
      'env.SLACK',
    ]);
    expect(env.every((f) => f.severity === 'medium')).toBe(true);
    expect(env.find((f) => f.location === 'env.AWS_ACCESS_KEY_ID')?.evidence).toBe('AKIA…MPLE');
    expect(env.find((f) => f.location === 'env.KEY')?.evidence).toBe(
      '-----BEGIN RSA PRIVATE KEY-----',
    );
    expect(
      rules(
        run({
          args: [
            '--token-file',
            './token.txt',
            '--api-key',
            '${API_KEY}',
            '--key',
            '/etc/ssl/server.key',
          ],
          env: { GITHUB_TOKEN: '${GITHUB_TOKEN}', API_KEY: 'your-api-key', SECRET: '' },
        }),
      ),
    ).toEqual([]);
  });

  it('credentials in the server URL: userinfo and key-like query parameters, not placeholders', () => {
    const remote = (url: string) => run({ transport: 'streamable_http', command: undefined, url });
    expect(
      byRule(remote('https://bob:hunter2-long-password@mcp.example.com/mcp'), 'secrets.url'),
    ).toEqual([expect.objectContaining({ severity: 'high', location: 'url', evidence: 'hu…rd' })]);
    expect(
      byRule(remote(`https://mcp.example.com/mcp?token=${SK}`), 'secrets.url')[0]?.evidence,
    ).toBe(`sk-proj-…${SK.slice(-4)}`);
    expect(
      byRule(remote('https://mcp.example.com/mcp?api_key=${KEY}&page=2'), 'secrets.url'),
    ).toEqual([]);
  });

  it('credential headers over plain http:// to another host; not over https or to loopback', () => {
    const headers = {
      Authorization: 'Bearer abcdefghijklmnop1234',
      'X-GitHub-Token': 'k-1234567890abcdef',
      Accept: 'application/json',
    };
    const plain = byRule(
      run({ transport: 'streamable_http', url: 'http://mcp.internal.example:8080/mcp', headers }),
      'secrets.headers',
    );
    expect(plain.map((f) => [f.location, f.severity, f.evidence])).toEqual([
      ['headers.Authorization', 'high', 'Bearer ab…34'],
      ['headers.X-GitHub-Token', 'high', 'k-…ef'],
    ]);
    expect(
      byRule(
        run({ transport: 'streamable_http', url: 'https://mcp.internal.example/mcp', headers }),
        'secrets.headers',
      ),
    ).toEqual([]);
    expect(
      byRule(
        run({ transport: 'streamable_http', url: 'http://localhost:3000/mcp', headers }),
        'secrets.headers',
      ),
    ).toEqual([]);
  });

  it('a tool that says it returns environment variables; one that sets them is fine', () => {
    expect(byRule(run({}, tools), 'secrets.env-dump')).toEqual([
      expect.objectContaining({ toolName: 'dump_config', severity: 'high' }),
    ]);
  });
});

describe('OWASP-MCP-02 capability surface and OWASP-MCP-05 execution surface (real fixture server)', () => {
  it('each tool trips the rule written for it, and the quiet ones trip nothing', () => {
    const found = run({ env: { API_TOKEN: 'x-configured' } }, tools);
    const table = found.map((f) => `${f.toolName} ${f.rule} ${f.severity} ${f.category}`).sort();
    expect(table).toEqual(
      [
        'deploy_service capability.destructive-open-world medium OWASP-MCP-02',
        'delete_records capability.annotation-contradiction medium OWASP-MCP-02',
        'drop_table capability.unannotated-destructive low OWASP-MCP-02',
        'dump_config secrets.env-dump high OWASP-MCP-01',
        'execute_sql capability.unannotated-destructive low OWASP-MCP-02',
        'execute_sql exec.command-param medium OWASP-MCP-05',
        'execute_sql exec.tool-name medium OWASP-MCP-05',
        'fetch_page exec.url-param low OWASP-MCP-05',
        'read_notes exec.path-param low OWASP-MCP-05',
        'run_command exec.command-param medium OWASP-MCP-05',
        'run_command exec.tool-name medium OWASP-MCP-05',
        'set_mode exec.command-param low OWASP-MCP-05',
      ].sort(),
    );
    expect(found.find((f) => f.toolName === 'read_notes')?.evidence).toBe('options.notes_path');
    for (const f of found) expect(OWASP_TITLES[f.category]).toBeDefined();
  });
});

describe('OWASP-MCP-07 transport and authentication', () => {
  it('plaintext to a remote host is high; loopback http and https are not flagged', () => {
    expect(
      byRule(
        run({ transport: 'streamable_http', url: 'http://mcp.example.com/mcp' }),
        'transport.plaintext',
      ),
    ).toEqual([expect.objectContaining({ severity: 'high', evidence: 'http://mcp.example.com' })]);
    for (const url of [
      'http://127.0.0.1:3000/mcp',
      'http://localhost/mcp',
      'http://[::1]:8080/sse',
      'https://mcp.example.com/mcp',
    ]) {
      expect(
        byRule(run({ transport: 'streamable_http', url }), 'transport.plaintext'),
        url,
      ).toEqual([]);
    }
  });

  it('auth.none once per server without credentials: high only for a remote server that answered without them', () => {
    const exposed: Observation = {
      ...tools,
      http: {
        unauthenticated: true,
        oauthMetadata: true,
        foreignOriginAccepted: false,
        allowOriginStar: false,
        sessionIdInUrl: null,
      },
    };
    const remote = byRule(
      run({ transport: 'streamable_http', url: 'https://mcp.example.com/mcp' }, exposed),
      'auth.none',
    );
    expect(remote).toEqual([
      expect.objectContaining({ kind: 'no_auth', severity: 'high', category: 'OWASP-MCP-07' }),
    ]);
    expect(remote[0]?.description).toContain('OAuth protected-resource metadata');
    expect(
      byRule(
        run({ transport: 'streamable_http', url: 'https://mcp.example.com/mcp' }),
        'auth.none',
      )[0]?.severity,
    ).toBe('medium');
    expect(
      byRule(
        run({ transport: 'streamable_http', url: 'http://127.0.0.1:9/mcp' }, exposed),
        'auth.none',
      )[0]?.severity,
    ).toBe('medium');
    expect(byRule(run({ env: { DEBUG: '1' } }), 'auth.none')[0]?.severity).toBe('medium');
    expect(byRule(run({ env: { GITHUB_TOKEN: 'configured' } }), 'auth.none')).toEqual([]);
    expect(
      byRule(
        run(
          {
            transport: 'sse',
            url: 'https://mcp.example.com/sse',
            headers: { Authorization: 'Bearer t' },
          },
          exposed,
        ),
        'auth.none',
      ),
    ).toEqual([]);
  });

  it('DNS rebinding: medium for a remote server; the legacy SSE session in the URL is low', () => {
    const http = {
      unauthenticated: false,
      oauthMetadata: false,
      foreignOriginAccepted: true,
      allowOriginStar: false,
      sessionIdInUrl: true,
    };
    const found = run(
      {
        transport: 'sse',
        url: 'https://mcp.example.com/sse',
        headers: { Authorization: 'Bearer t' },
      },
      { ...unreachable, http },
    );
    expect(byRule(found, 'transport.dns-rebinding')).toEqual([
      expect.objectContaining({ severity: 'medium' }),
    ]);
    expect(byRule(found, 'transport.sse-session-in-url')).toEqual([
      expect.objectContaining({ severity: 'low', category: 'OWASP-MCP-07' }),
    ]);
  });
});

describe('documentation', () => {
  it('docs/security.md lists exactly the rules implemented, with their category and kind', () => {
    const doc = securityDocSection('Secrets, capability surface');
    const rows = [
      ...doc.matchAll(/^\| `([a-z.-]+)` \| (OWASP-MCP-\d\d) \| [^|]+ \| \**([a-z_]+)\** \|/gm),
    ].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    const implemented = [...SURFACE_RULES, SHADOW_RULE].map(
      (r) => `${r.id} ${r.category} ${r.kind}`,
    );
    expect(rows.sort()).toEqual(implemented.sort());
  });
});
