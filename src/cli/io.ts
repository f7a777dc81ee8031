import type { Env } from '../config/env.ts';
import type { Store, StoreOptions } from '../store/open-store.ts';

/** Where a command writes: process.stdout / process.stderr, or a buffer in-process. */
export interface CliOut {
  write(text: string): unknown;
  /** A terminal (scan's progress line is drawn only on one). */
  readonly isTTY?: boolean;
}

/**
 * Everything a command takes from outside: its output streams, environment and working directory.
 * The real CLI passes the process's (`processIo()`); tests run commands in the same process with
 * their own (test/helpers/cli.ts), so no command reads process.env, process.cwd() or
 * process.stdout itself.
 */
export interface CliIo {
  readonly stdout: CliOut;
  readonly stderr: CliOut;
  readonly env: Env;
  readonly cwd: string;
  /**
   * True for the real process only: errors exit at once (process.exit), `monitor` stops on
   * SIGINT/SIGTERM and local commands install the process-wide postgres.js guard. In-process runs
   * leave the process alone: they get the exit code back and stop `monitor` with `signal`.
   */
  readonly ownsProcess?: boolean;
  /** Stops a command that runs until stopped (`monitor`) in-process. */
  readonly signal?: AbortSignal;
  /**
   * In-process runs only: opens the store a local command runs on, in place of openStore (the
   * tests hand commands a store from their pool of embedded databases: test/helpers/cli.ts). The
   * command closes what it is given as it closes its own.
   */
  readonly openStore?: (opts: StoreOptions) => Promise<Store>;
}

/** One run of a command: its io and the exit code a command sets when it finishes with a failure it reported. */
export interface CliRun extends CliIo {
  exitCode: number;
}

/** The real process's io (bin/spyglass.js). */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    ownsProcess: true,
  };
}
