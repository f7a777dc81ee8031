import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/auth.ts';
import { captureLog, type CapturedLog } from '../helpers/log-capture.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

// Bodies are built as text: JSON.stringify itself overflows the stack on a value 10,000 deep.
let server: InProcessApp;
let log: CapturedLog;

beforeAll(async () => {
  log = captureLog('info');
  server = await startInProcessApp({ SPYGLASS_RATE_LIMITS: 'off' }, log.logger);
});
afterAll(async () => server?.close());

/** `{"a":{"a":…1…}}`, `levels` objects deep. */
const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const send = (method: string, path: string, body: string) =>
  call(server.httpUrl, method, path, { body, headers: { 'content-type': 'application/json' } });
const RECEIVERS = ['/api/traces/spans', '/api/traces/otlp', '/v1/traces'];
const errorLogs = () =>
  log.lines
    .filter((l) => l.level >= 50)
    .map((l) => `${String(l.msg)}: ${String(l.err?.message ?? '')}`);

describe('deeply nested JSON in stored values', () => {
  it('is a 422 in the spec shape for project settings at any depth past 32, and 32 levels are stored', async () => {
    for (const levels of [10_000, 2_000]) {
      const res = await send('PATCH', '/api/projects/default', `{"settings":${nested(levels)}}`);
      expect(res.status, `${levels} deep: ${res.text}`).toBe(422);
      expect(res.json).toEqual({
        detail: [{ loc: ['body'], msg: 'Input should nest at most 64 levels', type: 'too_deep' }],
      });
    }
    for (const [method, path, body] of [
      ['PATCH', '/api/projects/default', `{"settings":${nested(33)}}`],
      ['POST', '/api/projects', `{"id":"deep","name":"Deep","settings":${nested(33)}}`],
    ] as const) {
      const res = await send(method, path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(422);
      expect(res.json.detail).toEqual([
        { loc: ['body', 'settings'], msg: 'Input should nest at most 32 levels', type: 'too_deep' },
      ]);
    }
    const ok = await send('PATCH', '/api/projects/default', `{"settings":${nested(32)}}`);
    expect(ok.status, ok.text.slice(0, 300)).toBe(200);
    expect(JSON.stringify(ok.json.settings)).toBe(nested(31).replace(/^/, '{"a":') + '}');
    expect(errorLogs()).toEqual([]);
  });

  it('limits the size of stored JSON: settings, catalog entries and alert config over 64 KiB are a 422', async () => {
    const big = await send(
      'PATCH',
      '/api/projects/default',
      JSON.stringify({ settings: { blob: 'x'.repeat(70_000) } }),
    );
    expect(big.status, big.text.slice(0, 300)).toBe(422);
    expect(big.json.detail[0]).toMatchObject({ loc: ['body', 'settings'], type: 'too_large' });
    const tags = await send(
      'PUT',
      '/api/agents/metadata/planner',
      JSON.stringify({ tags: Array.from({ length: 7000 }, (_, i) => `tag-${i}-xxxx`) }),
    );
    expect(tags.status, tags.text.slice(0, 300)).toBe(422);
    expect(tags.json.detail[0]).toMatchObject({ loc: ['body'], type: 'too_large' });
    for (const [method, path, body] of [
      ['PUT', '/api/servers/metadata/filesystem', { description: 'd'.repeat(70_000) }],
      [
        'POST',
        '/api/alerts/config',
        { chat_webhook: `https://hooks.example.com/${'w'.repeat(70_000)}` },
      ],
    ] as const) {
      const res = await send(method, path, JSON.stringify(body));
      expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(422);
      expect(res.json.detail[0]).toMatchObject({ loc: ['body'], type: 'too_large' });
    }
    const fine = await send(
      'PATCH',
      '/api/projects/default',
      JSON.stringify({ settings: { blob: 'x'.repeat(1000) } }),
    );
    expect(fine.status).toBe(200);
  });

  it('never reaches anything recursive on any state-changing route: 4xx, never a 500', async () => {
    const body = nested(10_000);
    for (const r of server.app.routeList.filter((x) =>
      ['POST', 'PUT', 'PATCH', 'DELETE'].includes(x.method),
    )) {
      const path = r.url.replace(/:[a-z_]+/g, 'x');
      const res = await send(r.method, path, body);
      const what = `${r.method} ${r.url}: ${res.text.slice(0, 300)}`;
      expect(res.status, what).toBeLessThan(500);
      // The span receivers judge each span on their own (below); everything else refuses the body whole.
      if (!RECEIVERS.includes(r.url))
        expect(res.json?.detail ?? res.json?.errors[0].extensions.issues, what).toEqual([
          { loc: ['body'], msg: 'Input should nest at most 64 levels', type: 'too_deep' },
        ]);
    }
    const spans = await send(
      'POST',
      '/api/traces/spans',
      JSON.stringify([nativeSpan({ input_args: 'DEEP' })]).replace('"DEEP"', nested(10_000)),
    );
    expect(spans.json.detail[0]).toEqual({
      loc: ['body', 0, 'input_args'],
      msg: 'Input should nest at most 32 levels',
      type: 'too_deep',
    });
    expect(errorLogs()).toEqual([]);
  });

  it('is refused over GraphQL as well: in variables, in literals, and in settings', async () => {
    const mutation = 'mutation($s: JSON) { createProject(name: "Deep", settings: $s) { id } }';
    const viaVariable = await send(
      'POST',
      '/graphql',
      `{"query":${JSON.stringify(mutation)},"variables":{"s":${nested(10_000)}}}`,
    );
    expect(viaVariable.status).toBe(422);
    expect(viaVariable.json.errors[0].extensions).toMatchObject({
      code: 'VALIDATION',
      issues: [{ loc: ['body'], type: 'too_deep' }],
    });
    const settings33 = await send(
      'POST',
      '/graphql',
      `{"query":${JSON.stringify(mutation)},"variables":{"s":${nested(33)}}}`,
    );
    expect(settings33.json.errors[0].extensions).toMatchObject({
      code: 'VALIDATION',
      issues: [{ loc: ['body', 'settings'], type: 'too_deep' }],
    });
    const literal = await send(
      'POST',
      '/graphql',
      JSON.stringify({
        query: `mutation { createProject(name: "Deep", settings: {a: ${'['.repeat(10_000)}${']'.repeat(10_000)}}) { id } }`,
      }),
    );
    expect(literal.json.errors[0].extensions).toEqual({ code: 'QUERY_TOO_DEEP' });
    expect(literal.json.errors[0].message).toBe('Query nests brackets deeper than 64 levels');
    // Brackets inside strings and comments are text, not nesting.
    const inString = await send(
      'POST',
      '/graphql',
      JSON.stringify({
        query: `# ${'['.repeat(100)}\n{ projects { id name } } # "${'{'.repeat(100)}"`,
      }),
    );
    expect(inString.json.errors, inString.text).toBeUndefined();
    expect(errorLogs()).toEqual([]);
  });
});
