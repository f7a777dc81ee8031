import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';
import { DeliveryBudget } from '../../src/live/delivery-share.ts';

/**
 * Live delivery's share of the event loop (hardening #8): under a flood, delivery waits for credit
 * that accrues at the share of wall time, so a smaller share leaves more of the loop to ingest.
 * The clock is faked, so the waits are exact and the test takes no real time.
 */
afterEach(() => {
  vi.useRealTimers();
});

/** A budget made on the faked clock (`fraction` undefined: the default share). */
function freshShare(fraction?: number): DeliveryBudget {
  vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'performance'] });
  return new DeliveryBudget(fraction);
}

/** ms until delivery may go on after `spentMs` of work from a full burst. */
async function waitAfter(percent: number | null, spentMs: number): Promise<number> {
  const share = freshShare(percent === null ? undefined : percent / 100);
  expect(share.creditWait()).toBeNull();
  share.charge(spentMs);
  const wait = share.creditWait();
  if (!wait) return 0;
  let settled = false;
  void wait.then(() => (settled = true));
  let ms = 0;
  while (!settled && ms < 10_000) {
    await vi.advanceTimersByTimeAsync(1);
    ms++;
  }
  return ms;
}

describe('live delivery share', () => {
  it('takes 10% of the event loop by default: 10 ms of delivery past the 5 ms burst waits 100 ms', async () => {
    expect(await waitAfter(null, 15)).toBe(100);
  });

  it('follows live.delivery_share_percent: at 20% the same work waits half as long', async () => {
    expect(await waitAfter(20, 15)).toBe(50);
  });

  it('lets delivery within the burst go on at once', async () => {
    expect(await waitAfter(null, 4)).toBe(0);
  });

  it('refuses a share outside (0, 1]', async () => {
    expect(() => new DeliveryBudget(0)).toThrow(RangeError);
    expect(() => new DeliveryBudget(1.5)).toThrow(RangeError);
  });
});

describe('live.delivery_share_percent', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-share-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function load(yaml: string) {
    const path = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(path, yaml);
    return loadConfig({ SPYGLASS_CONFIG: path }, dir);
  }

  it('defaults to 10 and takes 1 to 50', () => {
    expect(load('live: { keepalive_seconds: 15 }\n').live.deliverySharePercent).toBe(10);
    expect(load('live: { delivery_share_percent: 25 }\n').live.deliverySharePercent).toBe(25);
    for (const bad of ['0', '51', '12.5', '"lots"']) {
      let err: unknown;
      try {
        load(`live: { delivery_share_percent: ${bad} }\n`);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems.join('\n')).toContain(
        'live.delivery_share_percent must be an integer from 1 to 50',
      );
    }
  });
});
