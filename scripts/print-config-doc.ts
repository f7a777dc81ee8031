// Writes docs/configuration.md from the config schema (`npm run config-doc`); `--check` fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { configReference } from '../src/config/reference.ts';

const path = new URL('../docs/configuration.md', import.meta.url);
const printed = configReference();
if (process.argv.includes('--check')) {
  if (readFileSync(path, 'utf8') !== printed) {
    process.stderr.write(
      'docs/configuration.md is stale: run `npm run config-doc` and commit it\n',
    );
    process.exit(1);
  }
  process.stdout.write('docs/configuration.md is current\n');
} else {
  writeFileSync(path, printed);
  process.stdout.write('wrote docs/configuration.md\n');
}
