/**
 * `npm run screenshots`: the README's dashboard pictures. Starts a real server (PGlite, a temp data
 * dir, auth off on loopback), runs a real agent session through the agent SDK and real MCP
 * servers (scripts/demo-agent.ts), adds background traffic through native ingest, and captures each page into docs/img/<name>.png at 1280×800 with Debian's chromium
 * (playwright-core). A page still showing the placeholder is skipped with a line saying so: run it
 * again once the page is built.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServerProc } from '../bench/server-proc.ts';
import { nativeSpan } from '../test/helpers/spans.ts';
import { runDemoAgent } from './demo-agent.ts';
import { demoServersYaml } from './demo-servers.ts';

const OUT = join(import.meta.dirname, '../docs/img');
const CHROMIUM = process.env.SPYGLASS_CHROMIUM ?? '/usr/bin/chromium';
const SESSION = 'checkout-7f3a';

/** Background traffic over the last 30 minutes: a few agents and servers, a few failures. */
function traffic(end: number): Record<string, unknown>[] {
  const tools = [
    ['crm', 'get_customer'],
    ['docs', 'search'],
    ['stripe', 'get_invoice'],
    ['github', 'list_issues'],
  ];
  return Array.from({ length: 900 }, (_, i) => {
    const [server, tool] = tools[i % tools.length] as [string, string];
    const start = end - Math.round((i / 900) * 30 * 60_000) - (i % 7) * 1_000;
    const failed = i % 29 === 0 || (i > 300 && i < 340 && i % 3 === 0);
    return nativeSpan({
      session_id: `s-${Math.floor(i / 12)}`,
      agent_name: ['support', 'billing', 'triage'][i % 3],
      server_name: server,
      tool_name: tool,
      status: failed ? 'error' : 'success',
      error: failed ? 'upstream timeout' : null,
      output_result: failed ? null : '"ok"',
      health_tag: failed ? 'tool_failure' : 'success',
      started_at: new Date(start).toISOString(),
      ended_at: new Date(start + 120 + (i % 11) * 40).toISOString(),
    });
  });
}

const server = await startServerProc({
  rateLimits: 'off',
  extraConfig: `monitor:\n  enabled: false\n${demoServersYaml()}`,
});
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const now = Date.now();
  const spans = traffic(now);
  for (let i = 0; i < spans.length; i += 500) {
    const res = await fetch(`${server.httpUrl}/api/traces/spans`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spans.slice(i, i + 500)),
    });
    if (res.status >= 300) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  }
  await runDemoAgent(server.httpUrl, SESSION);
  // The servers' first check and scan, as `spyglass check` and `spyglass scan` would run them.
  for (const path of ['/api/health/check', '/api/security/scan']) {
    const res = await fetch(`${server.httpUrl}${path}`, { method: 'POST' });
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  }
  mkdirSync(OUT, { recursive: true });
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    colorScheme: 'light',
  });
  const page = await context.newPage();
  const shots: [name: string, path: string, ready: string][] = [
    ['overview', '/', '.tile'],
    ['sessions', '/sessions', 'table, [role="grid"]'],
    ['session', `/sessions/${SESSION}`, '[role="treeitem"]'],
    ['servers', '/servers', 'table tbody tr'],
    ['server-security', '/servers/github?tab=security', '.finding, table'],
  ];
  for (const [name, path, ready] of shots) {
    await page.goto(`${server.httpUrl}${path}`);
    const placeholder = page.getByText('This page is not built yet');
    await page.locator(ready).or(placeholder).first().waitFor({ timeout: 30_000 });
    if (await placeholder.count()) {
      process.stdout.write(`${name}: page not built (${path} shows the placeholder), skipped\n`);
      continue;
    }
    await page.waitForLoadState('networkidle');
    const file = join(OUT, `${name}.png`);
    await page.screenshot({ path: file });
    process.stdout.write(`${name}: ${file}\n`);
  }
} finally {
  await browser.close();
  await server.stop();
  server.dispose();
}
