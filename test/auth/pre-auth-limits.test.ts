import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GOOD_PASSWORD,
  bootstrapKey,
  call,
  configFile,
  expectStatus,
  type Reply,
} from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Limits that apply before a caller is known (docs/auth.md): every request of a client address,
 * failed authentications of an address, and the public invitation and password routes. Loopback is
 * a trusted proxy by default, so X-Forwarded-For gives each test its own client address.
 */

const statuses = (replies: Reply[]) => replies.map((r) => r.status);
const from = (address: string) => ({ 'x-forwarded-for': address });
const madeUpKey = () => `sg_${randomBytes(32).toString('hex')}`;

async function repeat(n: number, send: (i: number) => Promise<Reply>): Promise<Reply[]> {
  const out: Reply[] = [];
  for (let i = 0; i < n; i++) out.push(await send(i));
  return out;
}

function expectLimited(r: Reply, detail: string): void {
  expect(r.status).toBe(429);
  expect(r.json).toEqual({ detail });
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('limits before authentication', () => {
  const config = configFile('rate_limits:\n  per_address: 12\n  auth_failures: 5\n');
  const boot = bootstrapKey();
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_API_KEYS: boot, SPYGLASS_CONFIG: config.path });
    base = server.httpUrl;
  });
  afterAll(async () => {
    await server?.dispose();
    config.remove();
  });

  it('guessing keys: after 5 failures the address gets 429 before any key is looked up; other addresses are served', async () => {
    const used = (
      await server.services.keys.create({
        name: 'used',
        role: 'viewer',
        projectId: null,
        expiresAt: null,
        createdBy: 'test',
      })
    ).key;
    const unused = (
      await server.services.keys.create({
        name: 'unused',
        role: 'viewer',
        projectId: null,
        expiresAt: null,
        createdBy: 'test',
      })
    ).key;
    expect(
      (await call(base, 'GET', '/api/settings', { key: used, headers: from('203.0.113.99') }))
        .status,
    ).toBe(200);

    // 7 + 4 requests below: within this address's 12 a minute, so only the failure limit speaks.
    const guesses = await repeat(7, () =>
      call(base, 'GET', '/api/settings', { key: madeUpKey(), headers: from('203.0.113.10') }),
    );
    expect(statuses(guesses)).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expectLimited(guesses[5]!, 'Rate limit exceeded: 5 failed authentications per 1 minute');
    // Missing keys count too; a key that would need a lookup is refused at the blocked address...
    expect(
      (await call(base, 'GET', '/api/settings', { headers: from('203.0.113.10') })).status,
    ).toBe(429);
    expect(
      (await call(base, 'GET', '/api/settings', { key: unused, headers: from('203.0.113.10') }))
        .status,
    ).toBe(429);
    // ...while keys already known valid (bootstrap, or verified moments ago) go on working there.
    expect(
      (await call(base, 'GET', '/api/settings', { key: used, headers: from('203.0.113.10') }))
        .status,
    ).toBe(200);
    expect(
      (await call(base, 'GET', '/api/settings', { key: boot, headers: from('203.0.113.10') }))
        .status,
    ).toBe(200);
    expect(
      (await call(base, 'GET', '/api/settings', { key: unused, headers: from('203.0.113.98') }))
        .status,
    ).toBe(200);
  });

  it('the same wrong key sent again is still a failure each time', async () => {
    const key = madeUpKey();
    const replies = await repeat(7, () =>
      call(base, 'GET', '/api/projects', {
        headers: { ...from('203.0.113.11'), authorization: `Bearer ${key}` },
      }),
    );
    expect(statuses(replies)).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it('every request of an address counts, public and unknown routes included; each address has its own count', async () => {
    const metrics = await repeat(14, () =>
      call(base, 'GET', '/metrics', { headers: from('203.0.113.12') }),
    );
    // /metrics answers 404 without a configured token; the 13th request from the address is limited.
    expect(statuses(metrics)).toEqual([...Array(12).fill(404), 429, 429]);
    expectLimited(metrics[12]!, 'Rate limit exceeded: 12 per 1 minute');
    expect(
      (await call(base, 'GET', '/no/such/route', { headers: from('203.0.113.12') })).status,
    ).toBe(429);

    const served = await repeat(13, () =>
      call(base, 'GET', '/api/settings', { key: boot, headers: from('203.0.113.13') }),
    );
    expect(statuses(served)).toEqual([...Array(12).fill(200), 429]);
  });

  it('probes stay outside every limit', async () => {
    const probes = await repeat(20, (i) =>
      call(base, 'GET', i % 2 ? '/api/liveness' : '/api/readiness', {
        headers: from('203.0.113.14'),
      }),
    );
    expect(statuses(probes)).toEqual(Array(20).fill(200));
  });
});

describe('invitations and password checks are public and limited per address (spec §8: 5 and 10 a minute)', () => {
  const boot = bootstrapKey();
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_API_KEYS: boot });
    base = server.httpUrl;
  });
  afterAll(async () => server?.dispose());

  it('an invited person accepts and signs in without any API key', async () => {
    const invite = expectStatus(
      await call(base, 'POST', '/api/users/invite', {
        key: boot,
        body: { email: 'new.person@example.com', role: 'viewer' },
      }),
      201,
      'invite',
    );
    const accepted = await call(base, 'POST', '/api/users/accept-invite', {
      body: { token: invite.json.invite_token, password: GOOD_PASSWORD },
      headers: from('198.51.100.1'),
    });
    expect(accepted.status).toBe(200);
    const verified = await call(base, 'POST', '/api/users/verify', {
      body: { email: 'new.person@example.com', password: GOOD_PASSWORD },
      headers: from('198.51.100.1'),
    });
    expect(verified.status).toBe(200);
    expect(verified.json.ok).toBe(true);
  });

  it('the 6th invitation attempt of an address is 429, however many made-up keys it sends', async () => {
    const attempts = await repeat(7, () =>
      call(base, 'POST', '/api/users/accept-invite', {
        key: madeUpKey(),
        body: { token: 'guessed-token', password: GOOD_PASSWORD },
        headers: from('198.51.100.2'),
      }),
    );
    expect(
      attempts.slice(0, 5).every((r) => r.status >= 400 && r.status < 500 && r.status !== 429),
    ).toBe(true);
    expect(statuses(attempts.slice(5))).toEqual([429, 429]);
    expectLimited(attempts[5]!, 'Rate limit exceeded: 5 per 1 minute');
    // Another address still gets its own five.
    const other = await call(base, 'POST', '/api/users/accept-invite', {
      body: { token: 'guessed-token', password: GOOD_PASSWORD },
      headers: from('198.51.100.3'),
    });
    expect(other.status).not.toBe(429);
  });

  it('the 11th password check of an address is 429', async () => {
    const checks = await repeat(11, () =>
      call(base, 'POST', '/api/users/verify', {
        body: { email: 'new.person@example.com', password: 'wrong password!' },
        headers: from('198.51.100.4'),
      }),
    );
    // Wrong passwords: 401, and 423 once the account locks itself; the address limit comes on top.
    expect(statuses(checks)).toEqual([...Array(5).fill(401), ...Array(5).fill(423), 429]);
    expectLimited(checks[10]!, 'Rate limit exceeded: 10 per 1 minute');
  });
});
