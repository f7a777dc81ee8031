import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey } from '../helpers/auth.ts';
import { openWs } from '../helpers/graphql-ws.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { postJson } from '../helpers/spans.ts';

const ADMIN = bootstrapKey();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
});
afterAll(async () => server?.dispose());

const gql = (query: string, variables: Record<string, unknown> = {}) =>
  postJson(`${server.httpUrl}/graphql`, { query, variables }, { 'x-api-key': ADMIN });

describe('GraphiQL', () => {
  it('opens in a browser without a key, loads nothing from elsewhere, and runs only its own script', async () => {
    const res = await fetch(`${server.httpUrl}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    // Self-contained: no script, style or font fetched from a CDN.
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href="https?:/);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr|cdnjs/);
    // Where the key goes: the Headers tab, pre-filled with the header name.
    expect(html).toContain('X-API-Key');
    const csp = res.headers.get('content-security-policy') ?? '';
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    expect(csp).toContain(
      `script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`,
    );
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("'unsafe-eval'");
  });

  it('serves no data without a key: the page is all a keyless GET gets', async () => {
    const withQuery = await fetch(
      `${server.httpUrl}/graphql?query=${encodeURIComponent('{ projects { id } }')}`,
      { headers: { accept: 'text/html' } },
    );
    expect(withQuery.status).toBe(401);
    const json = await fetch(
      `${server.httpUrl}/graphql?query=${encodeURIComponent('{ projects { id } }')}`,
      { headers: { accept: 'application/json' } },
    );
    expect(json.status).toBe(401);
  });
});

describe('GraphQL errors', () => {
  it('answers an unauthenticated request with a GraphQL-shaped 401', async () => {
    const res = await postJson(`${server.httpUrl}/graphql`, { query: '{ projects { id } }' });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({
      errors: [
        {
          message: 'an API key is required (X-API-Key or Authorization: Bearer)',
          extensions: { code: 'UNAUTHENTICATED', status: 401 },
        },
      ],
    });
  });

  it('says a query costs too much, with a code, for literal and variable page sizes alike', async () => {
    const literal = await gql(
      '{ spans(first: 1000) { edges { node { spanId toolName serverName inputArgs } } } }',
    );
    expect(literal.json.errors[0].message).not.toMatch(/Syntax Error/);
    expect(literal.json.errors[0].message).toMatch(/^Query Cost limit of 5000 exceeded, found \d+/);
    expect(literal.json.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COSTLY' });
    const viaVariable = await gql(
      'query($n: Int) { spans(first: $n) { edges { node { spanId toolName serverName inputArgs } } } }',
      { n: 1000 },
    );
    expect(viaVariable.json.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COSTLY' });
    expect(viaVariable.json.data ?? null).toBeNull();
    const small = await gql('query($n: Int) { spans(first: $n) { edges { node { spanId } } } }', {
      n: 10,
    });
    expect(small.json.errors).toBeUndefined();
  });

  it('gives depth and alias refusals their own codes', async () => {
    const aliases = Array.from({ length: 40 }, (_, i) => `a${i}: projects { id }`).join(' ');
    const res = await gql(`{ ${aliases} }`);
    expect(res.json.errors[0].extensions).toEqual({ code: 'TOO_MANY_ALIASES' });
    expect(res.json.errors[0].message).not.toMatch(/Syntax Error/);
  });

  it('closes a WebSocket with a reason', async () => {
    await expect(openWs(server.httpUrl, {})).rejects.toThrow(
      'closed before connection_ack: 4403 Forbidden: an API key is required (X-API-Key or Authorization: Bearer)',
    );
  });
});
