import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESCAPE_NAME, NUL_NAME } from '../fixtures/mcp/hostile-tools.ts';
import { poolCliStores, runCliInProcess } from '../helpers/cli.ts';
import { fixtureArgs } from '../helpers/fixture-scripts.ts';
import { tempDir, writeConfig } from '../health/helpers.ts';
import { Lines, printRows } from '../../src/cli/output.ts';
import { renderSession } from '../../src/cli/sessions.ts';

/**
 * The CLI prints what a hostile MCP server chose (test/fixtures/mcp/hostile-server.ts) without
 * handing a terminal a single control, escape, bidi or invisible character: tables and lines show
 * them as `\u{1B}`, JSON as `\u001b` escapes that parse back to the original (nothing is lost),
 * SARIF names them escaped. Run locally (spyglass.yaml, embedded database) as a user would.
 */
/** What a terminal acts on: C0 controls except newline (ESC, BEL, CR, NUL…), DEL, C1, bidi, zero-width. */
const RAW =
  /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/u;
/** ESCAPE_NAME as the tables show it: every part visible, nothing executed. */
const SHOWN_NAME =
  'wipe\\u{1B}[2J\\u{1B}[8mhidden\\u{1B}]8;;https://evil.example/\\u{7}click\\u{1B}]8;;\\u{7}\\u{7}\\u{202E}txt.exe';

let dir: string;
let env: Record<string, string>;
const config = (clean: boolean) =>
  writeConfig(dir, {
    monitor: { enabled: false },
    servers: [
      {
        name: 'hostile',
        transport: 'stdio',
        command: process.execPath,
        args: fixtureArgs('hostile-server'),
        env: clean ? { HOSTILE_CLEAN: '1' } : {},
        timeout_seconds: 30,
      },
    ],
  });

beforeAll(() => {
  dir = tempDir();
  env = {
    SPYGLASS_CONFIG: join(dir, 'spyglass.yaml'),
    SPYGLASS_DATA_DIR: join(dir, 'data'),
    SPYGLASS_LOG_LEVEL: 'error',
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// The commands run on one pooled embedded database, not one open of the data directory each.
poolCliStores();

function expectNothingRaw(r: { stdout: string; stderr: string }): void {
  expect(RAW.exec(r.stdout)?.[0], r.stdout.slice(0, 2000)).toBeUndefined();
  expect(RAW.exec(r.stderr)?.[0], r.stderr.slice(0, 2000)).toBeUndefined();
}

describe('the CLI and a hostile MCP server', () => {
  it(
    'check, scan, scan --json, scan --sarif and scorecard print its text escaped and complete',
    { timeout: 420_000 },
    async () => {
      config(true);
      expect((await runCliInProcess(['check'], env)).code).toBe(0);
      // The NUL-bearing tool list appears: the drift lines name the new tool, escaped.
      config(false);
      const check = await runCliInProcess(['check'], env);
      expectNothingRaw(check);
      expect(check.stdout).toContain('nul\\u{0}name');

      const scan = await runCliInProcess(['scan'], env);
      expectNothingRaw(scan);
      expect(scan.stdout).toContain(SHOWN_NAME);
      expect(scan.stdout).toMatch(/poisoning\.ansi/);

      const json = await runCliInProcess(['scan', '--json'], env);
      expectNothingRaw(json);
      const [found] = JSON.parse(json.stdout);
      // Lossless: the JSON escapes parse back to the names the server sent.
      const tools = new Set(found.findings.map((f: any) => f.tool_name));
      expect(tools).toContain(ESCAPE_NAME);
      expect(tools).toContain(NUL_NAME);

      const sarif = await runCliInProcess(['scan', '--sarif'], env);
      expectNothingRaw(sarif);
      const results = JSON.parse(sarif.stdout).runs[0].results as any[];
      const names = results.flatMap((x) =>
        x.locations[0].logicalLocations.flatMap((l: any) => [l.name, l.fullyQualifiedName]),
      );
      expect(names).toContain(SHOWN_NAME);
      expect(names).toContain(`hostile/${SHOWN_NAME}`);
      for (const n of names) expect(RAW.test(n), n).toBe(false);
      for (const x of results) expect(RAW.test(x.message.text), x.message.text).toBe(false);

      const card = await runCliInProcess(['scorecard', '--server', 'hostile'], env);
      expectNothingRaw(card);
      expect(card.stdout).toMatch(/│ hostile\s+│ F\s+│/);
    },
  );

  it('every table cell and session line escapes what it quotes', async () => {
    const out: string[] = [];
    const stdout = { write: (chunk: string) => out.push(chunk) };
    printRows(
      stdout,
      [
        {
          tool: ESCAPE_NAME,
          nested: { name: ESCAPE_NAME },
          drift: new Lines([`added ${ESCAPE_NAME}`, 'removed x']),
        },
      ],
      ['tool', 'nested', 'drift'],
      false,
    );
    printRows(stdout, [{ tool: ESCAPE_NAME }], ['tool'], true);
    expect(RAW.exec(out.join(''))?.[0]).toBeUndefined();
    expect(out[0]).toContain(SHOWN_NAME);
    expect(JSON.parse(out[1] as string)).toEqual([{ tool: ESCAPE_NAME }]);

    const span = {
      span_type: 'tool_call',
      server_name: `srv\r${ESCAPE_NAME}`,
      tool_name: ESCAPE_NAME,
      status: 'error',
      error: `boom\u001b[2J\nforged line`,
      health_tag: null,
      latency_ms: 5,
      children: [],
    };
    const session = {
      session_id: 's\u202E1',
      agent_name: ESCAPE_NAME,
      health_tag: 'healthy',
      tool_calls: 1,
      failed_calls: 1,
      duration_ms: 5,
      input_tokens: 0,
      output_tokens: 0,
      est_cost_usd: 0,
      servers_used: [ESCAPE_NAME],
    };
    const text = renderSession(session as never, [span as never], false);
    expect(RAW.exec(text)?.[0]).toBeUndefined();
    // One line per node: a newline in an error cannot forge another line of the tree.
    expect(text.split('\n')).toHaveLength(5);
    expect(text).toContain(
      `✗ srv\\r${SHOWN_NAME}.${SHOWN_NAME}  5 ms  (boom\\u{1B}[2J\\nforged line)`,
    );
  });
});
