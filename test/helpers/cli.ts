import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli as runCliWith } from '../../src/cli/run.ts';

const BIN = fileURLToPath(new URL('../../bin/spyglass.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI as its own process (`node bin/spyglass.js`, the compiled code); resolves with its
 * exit code and output (never rejects on a non-zero exit). For what only a process shows: its exit
 * status, signals, `serve`, the compiled build. Everything else uses runCliInProcess.
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...env }, cwd, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The same command run in this process (src/cli/run.ts with buffers for stdout and stderr, the
 * environment the process would get, `cwd`): same result as runCli without starting node and
 * loading modules per call. `signal` stops a command that runs until stopped (`monitor`).
 */
export async function runCliInProcess(
  args: string[],
  env: Record<string, string> = {},
  cwd = process.cwd(),
  signal?: AbortSignal,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCliWith(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { ...process.env, ...env },
    cwd,
    signal,
  });
  return { code, stdout, stderr };
}
