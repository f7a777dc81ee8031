import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** Every gql`…` document in ui/src, with the file it sits in. */
function operations(): { file: string; source: string }[] {
  const out: { file: string; source: string }[] = [];
  for (const entry of readdirSync(join(ROOT, 'ui/src'), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    const text = readFileSync(path, 'utf8');
    for (const m of text.matchAll(/gql`([^`]*)`/g))
      out.push({ file: relative(ROOT, path), source: m[1] as string });
  }
  return out;
}

/**
 * The dashboard's operations against schema.graphql (docs/ui.md): a schema change that breaks a
 * view fails here. Operations are plain gql`…` literals without interpolation.
 */
describe('dashboard GraphQL operations', () => {
  const schema = buildSchema(readFileSync(join(ROOT, 'schema.graphql'), 'utf8'));
  const ops = operations();

  it('finds the operations', () => {
    expect(ops.length).toBeGreaterThan(3);
  });

  it.each(ops.map((o) => [o.file, o.source.trim().split('\n')[0], o] as const))(
    '%s: %s is valid against schema.graphql',
    (_file, _name, op) => {
      expect(op.source).not.toContain('${');
      const errors = validate(schema, parse(op.source));
      expect(errors.map((e) => e.message)).toEqual([]);
    },
  );
});
