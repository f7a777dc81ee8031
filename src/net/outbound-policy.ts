import { BlockList, isIP } from 'node:net';

/**
 * The outbound-URL policy of docs/health.md#catalog-servers-and-the-outbound-url-policy for every URL that arrives through the API (catalog
 * server URLs now, chat webhooks and advisory URLs later): http(s) only, and no loopback, private,
 * link-local, unique-local or metadata address unless the operator lists its range under
 * `network.allow_private_targets`. URLs written in spyglass.yaml never come through here.
 * This file decides; guarded-fetch.ts applies the decision to every connection.
 */
export interface OutboundPolicy {
  /** Ranges the operator opened (network.allow_private_targets). */
  readonly allowed: BlockList;
  /** Schemes accepted; webhooks pass ['https:']. */
  readonly schemes: readonly string[];
}

/** `reason` says which rule refused, never anything the target answered. */
export type OutboundCheck = { ok: true; url: URL } | { ok: false; reason: string };

export const MAX_URL_LENGTH = 2048;

/** [range, what it is] in the words an error uses. Embedded IPv4 (mapped, NAT64, 6to4) is unwrapped first. */
const REFUSED: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'a private'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'ipv4', 'a private'],
  ['192.0.0.0', 24, 'ipv4', 'a reserved'],
  ['192.168.0.0', 16, 'ipv4', 'a private'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved'],
  ['::', 128, 'ipv6', 'an unspecified'],
  ['::1', 128, 'ipv6', 'a loopback'],
  ['fc00::', 7, 'ipv6', 'a unique-local'],
  ['fe80::', 10, 'ipv6', 'a link-local'],
  ['fec0::', 10, 'ipv6', 'a site-local'],
  ['ff00::', 8, 'ipv6', 'a multicast'],
];
const refusedLists = REFUSED.map(([net, prefix, type, what]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, type);
  return { list, type, what };
});

/** Names that never go to DNS: they mean one of the refused addresses wherever they are used. */
const SPECIAL_NAMES: [RegExp, string][] = [
  [/^(.*\.)?localhost$/, '127.0.0.1'],
  [/^(metadata|metadata\.google\.internal|instance-data(\.ec2\.internal)?)$/, '169.254.169.254'],
];

/** Builds the policy from CIDRs (`10.1.0.0/16`, `fd00::/8`, a bare address); throws on a bad entry. */
export function createOutboundPolicy(
  allowPrivateTargets: readonly string[],
  schemes: readonly string[] = ['http:', 'https:'],
): OutboundPolicy {
  const allowed = new BlockList();
  for (const entry of allowPrivateTargets) {
    const [addr = '', prefix, extra] = entry.trim().split('/');
    const type = isIP(addr);
    const bits = prefix === undefined ? (type === 6 ? 128 : 32) : Number(prefix);
    if (
      type === 0 ||
      extra !== undefined ||
      !Number.isInteger(bits) ||
      bits < 0 ||
      bits > (type === 6 ? 128 : 32)
    ) {
      throw new Error(`network.allow_private_targets: ${JSON.stringify(entry)} is not a CIDR`);
    }
    allowed.addSubnet(addr, bits, type === 6 ? 'ipv6' : 'ipv4');
  }
  return { allowed, schemes };
}

/**
 * Why connecting to `address` is refused, or null when it may be used. IPv4 inside IPv6 (mapped
 * `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged as the IPv4 it carries.
 */
export function refusalFor(address: string, policy: OutboundPolicy): string | null {
  const ip = embeddedIpv4(address) ?? address;
  const type = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
  if (isIP(ip) === 0) return 'not an IP address';
  if (policy.allowed.check(ip, type) || (ip !== address && policy.allowed.check(address, 'ipv6')))
    return null;
  const hit = refusedLists.find((r) => r.type === type && r.list.check(ip, type));
  return hit ? `${hit.what} address, not listed in network.allow_private_targets` : null;
}

/**
 * The checks that need no DNS: scheme, length, and hosts that are addresses or special names.
 * Hostnames are resolved at connect time, where every address is checked (guarded-fetch.ts).
 */
export function checkOutboundUrl(raw: string, policy: OutboundPolicy): OutboundCheck {
  if (raw.length > MAX_URL_LENGTH)
    return refuse(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('not a valid URL');
  }
  if (!policy.schemes.includes(url.protocol))
    return refuse(
      `only ${policy.schemes.map((s) => s.replace(':', '')).join(' or ')} URLs are allowed`,
    );
  if (url.username || url.password) return refuse('credentials in the URL are not allowed');
  const reason = refusalFor(addressOfHost(url.hostname) ?? '', policy);
  if (reason && reason !== 'not an IP address') return refuse(`the host is ${reason}`);
  return { ok: true, url };
}

/** The address a URL host stands for without DNS: an IP literal or a special name; else null. */
export function addressOfHost(hostname: string): string | null {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (isIP(host)) return host;
  return SPECIAL_NAMES.find(([re]) => re.test(host))?.[1] ?? null;
}

export function policyMessage(reason: string): string {
  return `refused by the outbound URL policy: ${reason}`;
}

function refuse(reason: string): OutboundCheck {
  return { ok: false, reason };
}

function embeddedIpv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const groups = expandIpv6(address.toLowerCase());
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeros(5) && groups[5] === 0xffff) return v4(groups[6] ?? 0, groups[7] ?? 0); // ::ffff:a.b.c.d
  if (zeros(6) && (groups[6] ?? 0) !== 0) return v4(groups[6] ?? 0, groups[7] ?? 0); // ::a.b.c.d (deprecated)
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0))
    return v4(groups[6] ?? 0, groups[7] ?? 0);
  if (groups[0] === 0x2002) return v4(groups[1] ?? 0, groups[2] ?? 0);
  return null;
}

function expandIpv6(address: string): number[] {
  let text = address.split('%')[0] ?? '';
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text =
      text.slice(0, -dotted[1].length) +
      `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = part(head);
  const t = tail === undefined ? [] : part(tail);
  return [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
}
