import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PRICES as SERVER_PRICES,
  DEFAULT_PRICES_AS_OF as SERVER_AS_OF,
  normalizeModelId as serverNormalize,
  prefixMatches as serverPrefix,
  UNKNOWN_MODEL_PRICE as SERVER_UNKNOWN,
} from '../../src/costs/default-prices.ts';
import { HEALTH_TAGS as SERVER_TAGS } from '../../src/model/health-tags.ts';
import * as server from '../../src/model/prevention-config.ts';
import * as sdk from '../../sdk/src/config.ts';
import {
  DEFAULT_PRICES as SDK_PRICES,
  DEFAULT_PRICES_AS_OF as SDK_AS_OF,
  normalizeModelId as sdkNormalize,
  prefixMatches as sdkPrefix,
  UNKNOWN_MODEL_PRICE as SDK_UNKNOWN,
} from '../../sdk/src/pricing.ts';
import { HEALTH_TAGS as SDK_TAGS } from '../../sdk/src/tags.ts';

/**
 * The server and the agent SDK are separate packages that import nothing of each other; where they
 * share a wire shape each keeps its own copy. These hold the copies equal: a tag, a prevention
 * field, a default or a price changed on one side only fails here.
 */
describe('the wire shapes the server and the SDK share', () => {
  it('health tags: the same values in the same severity order', () => {
    expect([...SDK_TAGS]).toEqual([...SERVER_TAGS]);
  });

  it('prevention config: the same fields, loop actions and defaults', () => {
    expect([...sdk.PREVENTION_FIELDS]).toEqual([...server.PREVENTION_FIELDS]);
    expect([...sdk.LOOP_ACTIONS]).toEqual([...server.LOOP_ACTIONS]);
    expect(sdk.DEFAULT_PREVENTION).toEqual(server.DEFAULT_PREVENTION);
  });

  it('prevention config: the same validation and nested-shape reading on every kind of input', () => {
    const flat: Record<string, unknown>[] = [
      {},
      { loop_threshold: 0 },
      { loop_threshold: 2.5, max_steps: -1, loop_action: 'explode' },
      { max_cost_usd: 0, budget_soft_alert: -0.1, cb_cooldown_seconds: 'soon' },
      { max_cost_usd: 1, budget_soft_alert: 0.5, cb_enabled: 'yes', loop_enabled: null },
      { max_wall_time_s: Number.NaN, cb_failure_threshold: 1e20, cb_half_open_max_calls: 3 },
    ];
    for (const f of flat) {
      expect(sdk.validatePrevention(sdk.withDefaults(f))).toEqual(
        server.validatePrevention(server.withDefaults(f)),
      );
    }
    const nested: Record<string, unknown>[] = [
      { loop_detection: { enabled: false, threshold: 3, action: 'terminate', max_steps: 10 } },
      {
        budget: { max_cost_usd: 2, soft_alert_threshold_usd: 1.5, max_wall_time_seconds: 60 },
        circuit_breaker: { open_after_failures: 0 },
      },
      { loop_detection: 'no', budget: { unknown: 1 } },
    ];
    for (const n of nested) {
      expect(sdk.isNestedShape(n)).toBe(server.isNestedShape(n));
      expect(sdk.flattenNested(n)).toEqual(server.flattenNested(n));
    }
    for (const field of server.PREVENTION_FIELDS)
      expect(sdk.nestedFieldName(field)).toBe(server.nestedFieldName(field));
  });

  it('default prices: the same table, date, unknown-model price and model-id matching', () => {
    expect(SDK_PRICES).toEqual(SERVER_PRICES);
    expect(SDK_AS_OF).toBe(SERVER_AS_OF);
    expect(SDK_UNKNOWN).toEqual(SERVER_UNKNOWN);
    for (const id of [
      'OpenAI/GPT-4o-2024-08-06',
      'anthropic/claude-sonnet-4-5@20250929',
      'gpt-4o',
      'mistral-large-latest',
    ]) {
      expect(sdkNormalize(id)).toBe(serverNormalize(id));
      for (const key of Object.keys(SERVER_PRICES))
        expect(sdkPrefix(sdkNormalize(id), key)).toBe(serverPrefix(serverNormalize(id), key));
    }
  });
});

describe('the package boundary', () => {
  const ROOT = resolve(import.meta.dirname, '../..');
  /** Every relative or package import of the .ts files under `dir`, as `file: specifier`. */
  const imports = (dir: string): { file: string; target: string; spec: string }[] =>
    readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .flatMap((e) => {
        const file = join(e.parentPath, e.name);
        return [
          ...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g),
        ].map((m) => ({
          file: relative(ROOT, file),
          spec: m[1]!,
          target: m[1]!.startsWith('.') ? relative(ROOT, resolve(e.parentPath, m[1]!)) : m[1]!,
        }));
      });

  it('the server imports nothing of the SDK package', () => {
    const bad = imports('src').filter(
      (i) => i.target.startsWith('sdk/') || i.target.startsWith('spyglass-agent-sdk'),
    );
    expect(bad).toEqual([]);
  });

  it('the SDK imports nothing of the server', () => {
    const bad = imports('sdk/src').filter(
      (i) => i.spec.startsWith('.') && !i.target.startsWith('sdk/src/'),
    );
    expect(bad).toEqual([]);
    expect(imports('sdk/src').length).toBeGreaterThan(20);
  });
});
