#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm install` through the `prepare` script, or `npm run build`).
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    'spyglass: the compiled code is missing (dist/cli/main.js); run `npm run build` in the Spyglass checkout\n',
  );
  process.exit(1);
}
await import(main.href);
