import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENV_SETTINGS } from '../../src/config/env.ts';
import { configReference } from '../../src/config/reference.ts';

/** docs/configuration.md is generated from the schema; the other docs name only variables that exist. */
const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

describe('the configuration reference', () => {
  it('is current (run `npm run config-doc` after changing src/config/schema*.ts)', () => {
    expect(read('docs/configuration.md')).toBe(configReference());
  });

  it('lists every key and every environment name, aliases included', () => {
    const doc = read('docs/configuration.md');
    for (const s of ENV_SETTINGS) {
      expect(doc).toContain(`| \`${s.path.at(-1)}\` | \`${s.name}\``);
      for (const a of s.alias) expect(doc).toContain(`\`${a}\``);
    }
  });

  it('is the only list: README and docs/ name no server variable the loader does not read', () => {
    const known = new Set(ENV_SETTINGS.flatMap((s) => [s.name, ...s.alias]));
    // Not settings of the server: the config file's location, the CLI's and SDK's own, and the
    // tests' own (the browser tests' chromium binary, its processes and screenshots, temp directories in RAM or not,
    // V8's defaults for the processes tests start).
    for (const other of [
      'SPYGLASS_CHROMIUM',
      'SPYGLASS_TEST_TMPFS',
      'SPYGLASS_TEST_SCREENSHOTS',
      'SPYGLASS_CHROMIUM_MULTI_PROCESS',
      'SPYGLASS_TEST_CHILD_TIER_UP',
      'SPYGLASS_CONFIG',
      'SPYGLASS_URL',
      'SPYGLASS_API_KEY',
      'SPYGLASS_PROJECT_ID',
    ])
      known.add(other);
    const files = [
      'README.md',
      ...readdirSync(new URL('docs/', root))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const unknown = files.flatMap((f) =>
      [...read(f).matchAll(/\bSPYGLASS_[A-Z0-9_]*[A-Z0-9]\b/g)]
        .map((m) => m[0])
        .filter((name) => !known.has(name))
        .map((name) => `${f}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });
});
