import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, readReply } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { fetchUrl } from '../helpers/inject-fetch.ts';

/**
 * LangSight's tooling sends `Content-Type: application/json` with no body on every DELETE and on
 * bodiless POSTs (issue 24 item 11). An empty body is no body; a body that is not JSON still is 400.
 */

const ADMIN = bootstrapKey();

describe('Content-Type: application/json with an empty body', () => {
  let server: InProcessApp;
  const send = async (method: string, path: string, body?: string) =>
    readReply(
      await fetchUrl(`${server.httpUrl}${path}`, {
        method,
        headers: { 'x-api-key': ADMIN, 'content-type': 'application/json' },
        body: body ?? null,
      }),
    );

  beforeAll(async () => {
    server = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  });
  afterAll(async () => server?.close());

  it('a bodiless POST /api/health/check runs the check instead of 400', async () => {
    const r = await send('POST', '/api/health/check');
    expect(r.text).not.toContain('Body cannot be empty');
    expect(r.status).toBe(200);
  });

  it('a bodiless POST /api/alerts/test and DELETE of a prevention override are not 400', async () => {
    expect((await send('POST', '/api/alerts/test')).text).not.toContain('Body cannot be empty');
    const del = await send('DELETE', '/api/agents/planner/prevention-config');
    expect(del.status).not.toBe(400);
    expect(del.text).not.toContain('Body cannot be empty');
  });

  it('a body that is not JSON is still refused with 400', async () => {
    const r = await send('POST', '/api/health/check', '{not json');
    expect(r.status).toBe(400);
  });
});
