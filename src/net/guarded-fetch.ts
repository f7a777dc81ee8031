import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Agent, buildConnector, RequestInit as UndiciRequestInit } from 'undici';
import {
  addressOfHost,
  checkOutboundUrl,
  createOutboundPolicy,
  policyMessage,
  refusalFor,
  type OutboundCheck,
  type OutboundPolicy,
} from './outbound-policy.ts';

/**
 * A fetch for API-supplied URLs that applies the outbound policy on every connection it opens,
 * redirects and reconnects included: IP literals are checked before connecting, hostnames through
 * a `lookup` hook that sees every resolved address (a name with any refused address is refused),
 * so DNS answers that change between checks (rebinding) are caught where the socket is made.
 */
export class OutboundPolicyError extends Error {
  readonly code = 'EOUTBOUNDPOLICY';

  constructor(reason: string) {
    super(policyMessage(reason));
    this.name = 'OutboundPolicyError';
  }
}

export type GuardedFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

export function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.map((a) => refusalFor(a.address, policy)).find((r) => r !== null);
      if (refused || addresses.length === 0)
        return callback(
          new OutboundPolicyError(`the host resolves to ${refused ?? 'no address'}`),
          '',
          0,
        );
      if (options.all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** An undici Agent whose every connection passes the policy first. */
async function createGuardedAgent(policy: OutboundPolicy): Promise<Agent> {
  const { Agent, buildConnector } = await import('./undici-lib.ts');
  const connect = buildConnector({ lookup: guardedLookup(policy) } as buildConnector.BuildOptions);
  return new Agent({
    connect: (opts, callback) => {
      const literal = addressOfHost(opts.hostname);
      const reason = literal === null ? null : refusalFor(literal, policy);
      if (reason) {
        callback(new OutboundPolicyError(`the host is ${reason}`), null);
        return;
      }
      connect(opts, callback);
    },
  });
}

/**
 * fetch through a guarded agent; the URL itself (scheme, literal host) is checked before anything.
 * undici (about 0.8 MB of code) loads with the first request out, not with the server
 * (docs/benchmarks.md#start-up-bundled-2026-11-27-0305-0330-utc).
 */
export function createGuardedFetch(policy: OutboundPolicy): GuardedFetch {
  let agent: Promise<Agent> | undefined;
  return async (input, init) => {
    const href = typeof input === 'string' ? input : input.href;
    const checked = checkOutboundUrl(href, policy);
    if (!checked.ok) throw new OutboundPolicyError(checked.reason);
    agent ??= createGuardedAgent(policy);
    const [{ fetch: undiciFetch }, dispatcher] = await Promise.all([
      import('./undici-lib.ts'),
      agent,
    ]);
    const res = await undiciFetch(href, { ...(init as UndiciRequestInit), dispatcher });
    // A redirect handed back to the caller (redirect: 'manual') is judged here too, so whoever follows
    // it learns that the policy refused it; redirects fetch follows itself meet the agent's checks.
    const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
    if (location !== null) {
      let next: OutboundCheck;
      try {
        next = checkOutboundUrl(new URL(location, href).href, policy);
      } catch {
        next = { ok: false, reason: 'the redirect target is not a valid URL' };
      }
      if (!next.ok) {
        await res.body?.cancel().catch(() => {});
        throw new OutboundPolicyError(`redirect refused, ${next.reason}`);
      }
    }
    return res as unknown as Response;
  };
}

/** The outbound policy of docs/health.md#catalog-servers-and-the-outbound-url-policy and a fetch that obeys it: built once per process (services.ts). */
export interface Outbound {
  policy: OutboundPolicy;
  fetch: GuardedFetch;
}

export function createOutbound(allowPrivateTargets: readonly string[]): Outbound {
  const policy = createOutboundPolicy(allowPrivateTargets);
  return { policy, fetch: createGuardedFetch(policy) };
}
