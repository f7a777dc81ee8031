import { ESLint } from 'eslint';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADAPTERS, BASE, boundaries, HTTP, SERVICES, STORE } from '../../eslint.boundaries.js';

/**
 * `npm run check` lints with eslint.boundaries.js: an import against the data flow fails it. These
 * lint one-line sources as if they sat at the given path, with only the boundary rules (the full
 * config is type-aware and wants real files).
 */
const root = new URL('../../', import.meta.url).pathname;
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [{ files: ['**/*.ts'] }, ...boundaries],
});

async function problems(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('import boundaries', () => {
  it.each([
    [
      'store imports a service',
      'src/store/spans-repo.ts',
      "import { x } from '../alerts/alert-service.ts';",
    ],
    [
      'store imports an adapter',
      'src/store/spans-repo.ts',
      "import { x } from '../rest/routes.ts';",
    ],
    [
      'a service imports an adapter',
      'src/health/health-service.ts',
      "import { x } from '../rest/keys-routes.ts';",
    ],
    [
      'a service imports the HTTP plumbing',
      'src/health/health-service.ts',
      "import { x } from '../http/auth-hook.ts';",
    ],
    [
      'the store imports the HTTP plumbing',
      'src/store/spans-repo.ts',
      "import { x } from '../http/errors.ts';",
    ],
    [
      'the model imports the HTTP plumbing',
      'src/model/span.ts',
      "import { x } from '../http/route-schema.ts';",
    ],
    [
      'the HTTP plumbing imports an adapter',
      'src/http/auth-hook.ts',
      "import { x } from '../graphql/builder.ts';",
    ],
    [
      'the HTTP plumbing imports the SDK',
      'src/http/rate-limit.ts',
      "import { x } from '../../sdk/src/config.ts';",
    ],
    [
      'a nested service file imports an adapter',
      'src/alerts/producers/x.ts',
      "import { x } from '../../graphql/builder.ts';",
    ],
    [
      'an adapter imports another adapter',
      'src/graphql/spans.ts',
      "import { x } from '../rest/traces-routes.ts';",
    ],
    [
      'GraphQL reads a store repository instead of a service',
      'src/graphql/ui-auth.ts',
      "import { findUser } from '../store/users-repo.ts';",
    ],
    ['REST imports a store table', 'src/rest/x.ts', "import { spans } from '../store/schema.ts';"],
    [
      'a receiver imports a store repository',
      'src/receivers/otlp-grpc-admit.ts',
      "import { x } from '../store/spans-repo.ts';",
    ],
    [
      'the HTTP plumbing imports a store repository',
      'src/http/auth-hook.ts',
      "import { x } from '../store/keys-repo.ts';",
    ],
    ['the CLI imports REST', 'src/cli/api-key.ts', "import { x } from '../rest/keys-routes.ts';"],
    [
      'server code imports the SDK',
      'src/costs/price-book.ts',
      "import { x } from '../../sdk/src/pricing.ts';",
    ],
    [
      'a nested server file imports the SDK',
      'src/alerts/producers/x.ts',
      "import { x } from '../../../sdk/src/config.ts';",
    ],
    ['the model imports a service', 'src/model/span.ts', "import { x } from '../sessions/x.ts';"],
    [
      'the SDK imports server code',
      'sdk/src/spyglass.ts',
      "import { x } from '../../src/model/span.ts';",
    ],
    [
      'a nested SDK file imports server code',
      'sdk/src/guards/loop.ts',
      "import { x } from '../../../src/store/db.ts';",
    ],
  ])('refuses: %s', async (_name, file, source) => {
    expect(await problems(file, source)).toEqual([
      expect.stringMatching(/^no-restricted-imports: /),
    ]);
  });

  it.each([
    [
      'a service imports the store and the model',
      'src/health/x.ts',
      "import { a } from '../store/db.ts';\nimport { b } from '../model/span.ts';",
    ],
    [
      'an adapter imports services',
      'src/rest/x.ts',
      "import { a } from '../health/health-service.ts';\nimport { b } from '../auth/x.ts';",
    ],
    [
      'GraphQL imports the HTTP plumbing',
      'src/graphql/yoga.ts',
      "import { a } from '../http/errors.ts';",
    ],
    [
      'a receiver imports the HTTP plumbing',
      'src/receivers/otlp-http.ts',
      "import { a } from '../http/route-schema.ts';",
    ],
    [
      'the HTTP plumbing imports services, the store and the base',
      'src/http/auth-hook.ts',
      "import { a } from '../auth/access.ts';\nimport { b } from '../store/db.ts';\nimport { c } from '../errors.ts';",
    ],
    [
      "an adapter names the store's plumbing",
      'src/rest/probes.ts',
      "import { Store } from '../store/open-store.ts';\nimport { a } from '../store/read-routing.ts';",
    ],
    [
      'an adapter imports its own folder',
      'src/graphql/spans.ts',
      "import { a } from './builder.ts';",
    ],
    [
      'packages named like our folders',
      'src/health/x.ts',
      "import { a } from 'graphql';\nimport { b } from '@modelcontextprotocol/sdk/client/index.js';",
    ],
    [
      'the SDK imports itself',
      'sdk/src/guards/loop.ts',
      "import { a } from '../config.ts';\nimport { b } from './x.ts';",
    ],
    [
      'the composition root imports everything',
      'src/app.ts',
      "import { a } from './rest/x.ts';\nimport { b } from './graphql/y.ts';",
    ],
  ])('allows: %s', async (_name, file, source) => {
    expect(await problems(file, source)).toEqual([]);
  });

  it('every folder under src/ is in exactly one layer', () => {
    const folders = readdirSync(new URL('../../src/', import.meta.url), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const layered = [...ADAPTERS, ...HTTP, ...BASE, ...STORE, ...SERVICES].sort();
    expect(layered).toEqual(folders);
  });
});
