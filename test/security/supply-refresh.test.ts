import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch } from '../../src/net/guarded-fetch.ts';
import { createOutboundPolicy } from '../../src/net/outbound-policy.ts';
import {
  advisoriesFor,
  createAdvisoryRefresher,
  loadAdvisories,
  refreshAdvisories,
  type AdvisoryDb,
} from '../../src/security/supply/index.ts';
import { userAdvisory } from '../fixtures/osv/records.ts';

// A local OSV mirror: /all.zip, /one.json, /broken.zip, /fail (500), /big (too large), /hang (never ends).
let server: Server;
let base: string;
let shipped: AdvisoryDb;
let hits = 0;
const zip = zipSync({
  'USER-R1.json': strToU8(JSON.stringify(userAdvisory('USER-R1'))),
  'USER-R2.json': strToU8(JSON.stringify(userAdvisory('USER-R2'))),
});

beforeAll(async () => {
  shipped = await loadAdvisories({ advisoriesPath: undefined });
  server = createServer((req, res) => {
    hits += 1;
    if (req.url === '/all.zip')
      return res.writeHead(200, { 'content-type': 'application/zip' }).end(zip);
    if (req.url === '/one.json')
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(userAdvisory('USER-R3')));
    if (req.url === '/broken.zip')
      return res.writeHead(200).end(Buffer.from('PK\u0003\u0004not really'));
    if (req.url === '/hang') return res.writeHead(200).write('['); // never finishes
    if (req.url === '/big') return res.writeHead(200).end(Buffer.alloc(64 * 1024, 32));
    res.writeHead(500).end('internal details the error must not echo');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const allowLoopback = () => createGuardedFetch(createOutboundPolicy(['127.0.0.0/8']));
const names = (db: AdvisoryDb) =>
  advisoriesFor(db, 'npm', 'acme-mcp')
    .map((a) => a.record.id)
    .sort();

describe('refreshAdvisories', () => {
  it('applies an OSV zip from the URL over the current set when the policy allows the address', async () => {
    const outcome = await refreshAdvisories(`${base}/all.zip`, allowLoopback(), shipped, {
      timeoutMs: 10_000,
    });
    expect(outcome).toMatchObject({ status: 'updated', records: 2 });
    expect(names(outcome.db)).toEqual(['USER-R1', 'USER-R2']);
    expect(advisoriesFor(outcome.db, 'npm', 'mcp-remote')).toHaveLength(1); // the shipped records stay
    const json = await refreshAdvisories(`${base}/one.json`, allowLoopback(), outcome.db, {
      timeoutMs: 10_000,
    });
    expect(names(json.db)).toEqual(['USER-R1', 'USER-R2', 'USER-R3']);
  });

  it('refuses a loopback URL without network.allow_private_targets, before connecting', async () => {
    const before = hits;
    const outcome = await refreshAdvisories(
      `${base}/all.zip`,
      createGuardedFetch(createOutboundPolicy([])),
      shipped,
      { timeoutMs: 10_000 },
    );
    expect(outcome.status).toBe('failed');
    expect(outcome).toMatchObject({
      error: expect.stringContaining(
        'refused by the outbound URL policy: the host is a loopback address',
      ) as unknown,
    });
    expect(outcome.db).toBe(shipped);
    expect(hits).toBe(before);
  });

  it('keeps the last good set on an HTTP error, a broken zip and an oversized download', async () => {
    const fail = await refreshAdvisories(`${base}/fail`, allowLoopback(), shipped, {
      timeoutMs: 10_000,
    });
    expect(fail).toEqual({
      status: 'failed',
      db: shipped,
      error: `advisory refresh from ${base}/fail failed: the server answered HTTP 500`,
    });
    const broken = await refreshAdvisories(`${base}/broken.zip`, allowLoopback(), shipped, {
      timeoutMs: 10_000,
    });
    expect(broken).toMatchObject({
      status: 'failed',
      db: shipped,
      error: expect.stringContaining('not a readable zip') as unknown,
    });
    const big = await refreshAdvisories(`${base}/big`, allowLoopback(), shipped, {
      timeoutMs: 10_000,
      maxBytes: 1024,
    });
    expect(big).toMatchObject({
      status: 'failed',
      db: shipped,
      error: expect.stringContaining('more than the limit of 1024') as unknown,
    });
  });

  it('gives up on a download that does not finish in time', async () => {
    const slow = await refreshAdvisories(`${base}/hang`, allowLoopback(), shipped, {
      timeoutMs: 300,
    });
    expect(slow).toEqual({
      status: 'failed',
      db: shipped,
      error: `advisory refresh from ${base}/hang failed: timed out`,
    });
  });
});

describe('createAdvisoryRefresher', () => {
  it('does nothing without advisories_url', async () => {
    const r = createAdvisoryRefresher(
      { advisoriesUrl: undefined, advisoriesRefreshHours: 24 },
      allowLoopback(),
      shipped,
    );
    expect(await r.refreshIfDue(new Date())).toBeNull();
    expect(r.current()).toBe(shipped);
  });

  it('refreshes when due, then not again until advisories_refresh_hours have passed; a failure keeps the set', async () => {
    const cfg = { advisoriesUrl: `${base}/all.zip`, advisoriesRefreshHours: 6 };
    const r = createAdvisoryRefresher(cfg, allowLoopback(), shipped, { timeoutMs: 10_000 });
    const t0 = new Date('2026-11-23T00:00:00Z');
    expect(await r.refreshIfDue(t0)).toMatchObject({ status: 'updated' });
    const refreshed = r.current();
    expect(names(refreshed)).toEqual(['USER-R1', 'USER-R2']);
    expect(await r.refreshIfDue(new Date(t0.getTime() + 5 * 3_600_000))).toBeNull();
    cfg.advisoriesUrl = `${base}/fail`;
    expect(await r.refreshIfDue(new Date(t0.getTime() + 6 * 3_600_000))).toMatchObject({
      status: 'failed',
    });
    expect(r.current()).toBe(refreshed);
  });
});
