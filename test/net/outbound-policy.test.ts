import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuardedFetch,
  guardedLookup,
  OutboundPolicyError,
} from '../../src/net/guarded-fetch.ts';
import { checkOutboundUrl, createOutboundPolicy } from '../../src/net/outbound-policy.ts';

/**
 * The outbound-URL policy (docs/health.md#catalog-servers-and-the-outbound-url-policy) on real sockets. Refused addresses are refused before any
 * connection is made, so nothing here sends a packet anywhere but 127.0.0.1.
 */
let server: Server;
let base: string;
let connections = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.startsWith('/to/')) {
      res.writeHead(302, { location: decodeURIComponent(req.url.slice(4)) }).end('internal answer');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from loopback');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const closed = createOutboundPolicy([]);
const loopbackOpen = createOutboundPolicy(['127.0.0.0/8']);

const REFUSED = [
  ['http://127.0.0.1/', 'loopback'],
  ['http://localhost:8080/mcp', 'loopback'],
  ['http://app.localhost/', 'loopback'],
  ['http://2130706433/', 'loopback'], // decimal 127.0.0.1
  ['http://0x7f.1/', 'loopback'], // hex shorthand
  ['http://[::ffff:127.0.0.1]/', 'loopback'], // IPv4-mapped IPv6
  ['http://[::1]/', 'loopback'],
  ['http://10.1.2.3/', 'private'],
  ['http://172.16.0.1/', 'private'],
  ['http://192.168.1.1/', 'private'],
  ['http://169.254.169.254/latest/meta-data/', 'link-local (cloud metadata)'],
  ['http://metadata.google.internal/computeMetadata/v1/', 'link-local (cloud metadata)'],
  ['http://100.100.100.200/', 'carrier-grade NAT'],
  ['http://[fd00::1]/', 'unique-local'],
  ['http://[fd00:ec2::254]/', 'unique-local'],
  ['http://[fe80::1]/', 'link-local'],
  ['http://[64:ff9b::a00:1]/', 'private'], // NAT64 of 10.0.0.1
  ['http://[2002:a9fe:a9fe::]/', 'link-local'], // 6to4 of 169.254.169.254
  ['http://0.0.0.0:8000/', 'unspecified'],
] as const;

describe('checkOutboundUrl', () => {
  it.each(REFUSED)('refuses %s (%s)', (url, what) => {
    const r = checkOutboundUrl(url, closed);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(what);
    expect(!r.ok && r.reason).toContain('network.allow_private_targets');
  });

  it.each([
    'ftp://example.com/',
    'file:///etc/passwd',
    'gopher://example.com/',
    'not a url',
    `https://example.com/${'a'.repeat(2100)}`,
    'https://user:pw@example.com/',
  ])('refuses %s whatever its address', (url) =>
    expect(checkOutboundUrl(url, loopbackOpen).ok).toBe(false),
  );

  it('accepts public http(s) URLs and hostnames (resolved and checked when connecting)', () => {
    for (const url of [
      'https://mcp.example.com/mcp',
      'http://93.184.216.34/sse',
      'https://[2606:4700::1111]/mcp',
    ]) {
      expect(checkOutboundUrl(url, closed)).toMatchObject({ ok: true });
    }
  });

  it('accepts what the operator listed, and only that', () => {
    const some = createOutboundPolicy(['10.1.0.0/16', 'fd00::/8']);
    expect(checkOutboundUrl('http://10.1.2.3/', some).ok).toBe(true);
    expect(checkOutboundUrl('http://[fd00::1]/', some).ok).toBe(true);
    expect(checkOutboundUrl('http://10.2.0.1/', some).ok).toBe(false);
    expect(checkOutboundUrl('http://127.0.0.1/', some).ok).toBe(false);
  });

  it('rejects a bad CIDR in the configuration', () => {
    expect(() => createOutboundPolicy(['10.0.0.0/33'])).toThrow(/not a CIDR/);
    expect(() => createOutboundPolicy(['intranet'])).toThrow(/not a CIDR/);
  });
});

describe('guarded fetch', () => {
  it.each(REFUSED)('refuses %s before connecting', async (url) => {
    await expect(createGuardedFetch(closed)(url)).rejects.toBeInstanceOf(OutboundPolicyError);
  });

  it('refuses before connecting: the loopback listener sees no connection', async () => {
    const before = connections;
    await expect(createGuardedFetch(closed)(`${base}/hello`)).rejects.toThrow(
      /^refused by the outbound URL policy: the host is a loopback address/,
    );
    expect(connections).toBe(before);
  });

  it('checks every address a hostname resolves to (the lookup the connection uses)', async () => {
    const lookup = (policy: ReturnType<typeof createOutboundPolicy>) =>
      new Promise<unknown>((resolve) =>
        guardedLookup(policy)('localhost', { all: true }, (err, addresses) =>
          resolve(err ?? addresses),
        ),
      );
    const refused = await lookup(closed);
    expect(refused).toBeInstanceOf(OutboundPolicyError);
    expect(String((refused as Error).message)).toMatch(/the host resolves to a loopback address/);
    expect(await lookup(createOutboundPolicy(['127.0.0.0/8', '::1/128']))).toEqual(
      expect.arrayContaining([expect.objectContaining({ address: '127.0.0.1' })]),
    );
  });

  it('reaches an address the operator opened', async () => {
    const res = await createGuardedFetch(loopbackOpen)(`${base}/hello`);
    expect(await res.text()).toBe('hello from loopback');
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://[::ffff:a9fe:a9fe]/',
  ])(
    'refuses a redirect to %s, followed or handed back, without echoing the answer',
    async (target) => {
      const fetchFn = createGuardedFetch(loopbackOpen);
      const url = `${base}/to/${encodeURIComponent(target)}`;
      for (const redirect of ['follow', 'manual'] as const) {
        const err = await fetchFn(url, { redirect }).then(
          () => null,
          (e: unknown) => e as Error,
        );
        const policy =
          err instanceof OutboundPolicyError
            ? err
            : ((err as { cause?: unknown } | null)?.cause as Error | undefined);
        expect(policy).toBeInstanceOf(OutboundPolicyError);
        expect(String(policy?.message)).toMatch(/^refused by the outbound URL policy/);
        expect(String(policy?.message)).not.toContain('internal answer');
      }
    },
  );
});
