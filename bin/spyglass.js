#!/usr/bin/env node
// Runs the CLI's bundle (dist/bundle/, built by `npm install` through the `prepare` script, or
// `npm run build`; scripts/bundle.ts).
import { existsSync } from 'node:fs';

const main = new URL('../dist/bundle/cli.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    'spyglass: the compiled code is missing (dist/bundle/cli.js); run `npm run build` in the Spyglass checkout\n',
  );
  process.exit(1);
}
await import(main.href);
