import { processIo } from './io.ts';
import { runCli } from './run.ts';

// The process entry of the CLI (bin/spyglass.js): every command runs through runCli (src/cli/run.ts)
// with the process's streams, environment and working directory.
process.exitCode = await runCli(process.argv.slice(2), processIo());
