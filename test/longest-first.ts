import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Runs the test files longest first, so that no long file starts last while the other workers sit
 * idle. Vitest orders by the durations of the previous run on this machine (its cache under
 * node_modules/.vite) and, without them (a clean clone, as CI runs), by file size, which put files
 * that mostly wait on servers and browsers (small files, long runs) at the end. Without a cached
 * duration a file's duration comes from test/file-durations.json (`npm run test:durations`
 * rewrites it from the last run's cache); a file in neither runs first, as Vitest runs an unknown
 * file first.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const known = JSON.parse(
      readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8'),
    ) as Record<string, number>;
    const ms = (spec: TestSpecification): number => {
      const path = relative(this.ctx.config.root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      return cached?.duration ?? known[path] ?? Number.POSITIVE_INFINITY;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((spec) => ({ spec, ms: ms(spec) }))
      .sort((a, b) => b.ms - a.ms)
      .map(({ spec }) => spec);
  }
}
