// Writes schema.graphql from the code-first schema (`npm run schema`); `--check` fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { printSortedSchema } from '../src/graphql/schema.ts';

const path = new URL('../schema.graphql', import.meta.url);
const printed = printSortedSchema();
if (process.argv.includes('--check')) {
  const committed = readFileSync(path, 'utf8');
  if (committed !== printed) {
    process.stderr.write('schema.graphql is stale: run `npm run schema` and commit it\n');
    process.exit(1);
  }
  process.stdout.write('schema.graphql is current\n');
} else {
  writeFileSync(path, printed);
  process.stdout.write('wrote schema.graphql\n');
}
