import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A stdio MCP server as a child process in its own process group, so that ending it also ends
 * whatever it started (`npx` runs node, shells run pipelines). Messages are newline-delimited
 * JSON. Ending escalates from closing stdin to SIGTERM to SIGKILL of the whole group; the process
 * never outlives a check, and a last-resort exit hook kills any group still alive.
 */

/** What a stdio server inherits besides its configured env: the same short list as the MCP SDK. */
const INHERITED_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
const MAX_LINE_BYTES = 10 * 1024 * 1024;
const STDERR_TAIL = 2048;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StdioProcessOptions {
  command: string;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  onMessage(message: unknown): void;
  onExit(info: ExitInfo): void;
  onError(err: Error): void;
}

/**
 * The children of this process, whichever app (or CLI command) started them: process-level by
 * nature, like the exit hook that kills what is left of them. Tracked by child, not by pid: if an
 * exited server's pid is handed out again (to another app's server) before the first is stopped,
 * stopping the first does not stop tracking the second.
 */
const live = new Set<ChildProcess>();
let hookInstalled = false;

/** Process groups of stdio servers still running (tests use it to prove nothing leaks). */
export function liveStdioGroups(): number[] {
  return [...live].map((child) => child.pid as number);
}

export class StdioProcess {
  private child: ChildProcess | undefined;
  /** The unterminated message so far, in the pieces it came in, and their length. */
  private pending: string[] = [];
  private pendingLength = 0;
  private stderr = '';
  private exitInfo: ExitInfo | null = null;
  private readonly exited: Promise<ExitInfo>;
  private resolveExit!: (info: ExitInfo) => void;

  constructor(private readonly opts: StdioProcessOptions) {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get exit(): ExitInfo | null {
    return this.exitInfo;
  }

  /** The last bytes the server wrote to stderr, for error messages. */
  get stderrTail(): string {
    return this.stderr.trim();
  }

  /** Resolves once the process runs; rejects when it cannot be started (ENOENT, EACCES). */
  start(): Promise<void> {
    installExitHook();
    const env: Record<string, string> = {};
    for (const key of INHERITED_ENV) {
      const v = process.env[key];
      if (v !== undefined && !v.startsWith('()')) env[key] = v;
    }
    Object.assign(env, this.opts.env);
    return new Promise((resolve, reject) => {
      const child = spawn(this.opts.command, this.opts.args ?? [], {
        env,
        cwd: this.opts.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        shell: false,
      });
      this.child = child;
      // Tracked from now, not from 'spawn': a check may be torn down before that event.
      if (child.pid !== undefined) live.add(child);
      child.once('spawn', () => resolve());
      child.once('error', (err) => {
        reject(err);
        this.opts.onError(err);
      });
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        this.resolveExit(this.exitInfo);
        this.opts.onExit(this.exitInfo);
      });
      child.stdin?.on('error', () => {}); // EPIPE when the server died: reported through exit
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (chunk: string) => this.read(chunk));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
      });
    });
  }

  send(message: unknown): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || this.exitInfo)
      return Promise.reject(new Error('the server process is not running'));
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * Ends the process group. `polite` first closes stdin (the MCP way to ask a stdio server to
   * stop) and waits briefly; an unresponsive server goes straight to signals.
   */
  async stop(polite: boolean): Promise<void> {
    const child = this.child;
    const pid = child?.pid;
    if (!child || pid === undefined) return;
    try {
      if (!this.exitInfo && polite) {
        child.stdin?.end();
        await this.waitExit(200);
      }
      if (!this.exitInfo || groupAlive(pid)) {
        signalGroup(pid, 'SIGTERM');
        await this.waitExit(300);
      }
      if (!this.exitInfo || groupAlive(pid)) {
        signalGroup(pid, 'SIGKILL');
        await this.waitExit(2000);
      }
    } finally {
      // The leader is gone; SIGKILL stragglers of its group, then stop tracking it.
      if (groupAlive(pid)) signalGroup(pid, 'SIGKILL');
      live.delete(child);
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
    }
  }

  private async waitExit(ms: number): Promise<void> {
    if (this.exitInfo) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  /**
   * Splits stdout into lines, looking for a newline in each chunk only: a long message arrives in
   * many chunks, and appending each to one string and searching that string from its start cost
   * time that grew with the square of the message's size (2.8-2.9 s of the event loop for one
   * 9 MB message in 64 KB chunks; docs/benchmarks.md#a-large-message-from-a-stdio-server-2026-11-28).
   */
  private read(chunk: string): void {
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf('\n', start)) >= 0) {
      const piece = chunk.slice(start, nl);
      start = nl + 1;
      const before = this.pendingLength;
      const line = this.pending.length === 0 ? piece : this.pending.join('') + piece;
      this.pending = [];
      this.pendingLength = 0;
      // A message over the limit is dropped whole, and reported once (here, or when it crossed it).
      if (before + piece.length <= MAX_LINE_BYTES)
        this.line(line.endsWith('\r') ? line.slice(0, -1) : line);
      else if (before <= MAX_LINE_BYTES) this.tooLarge();
    }
    if (start === chunk.length) return;
    const rest = start === 0 ? chunk : chunk.slice(start);
    this.pendingLength += rest.length;
    if (this.pendingLength <= MAX_LINE_BYTES) this.pending.push(rest);
    else {
      // From here on only its length is kept, until its newline ends it.
      if (this.pendingLength - rest.length <= MAX_LINE_BYTES) this.tooLarge();
      this.pending = [];
    }
  }

  private tooLarge(): void {
    this.opts.onError(new Error('the server wrote a message larger than 10 MB'));
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    try {
      this.opts.onMessage(JSON.parse(line));
    } catch {
      // Servers that log to stdout break the protocol; the request then times out with a clear message.
      this.stderr = `${this.stderr}\n[stdout] ${line.slice(0, 200)}`.slice(-STDERR_TAIL);
    }
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already empty
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function installExitHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  process.once('exit', () => {
    for (const child of live) signalGroup(child.pid as number, 'SIGKILL');
  });
}
