/**
 * The three loop patterns of spec §2.9 over one session's calls, kept as run counters instead of a
 * list of past calls: O(1) memory and time per call whatever the threshold, and a threshold change
 * applies at once because runs are compared with the threshold of the moment.
 *
 * - repetition: the attempted call would be the N-th (or later) consecutive call with the same
 *   fingerprint (server, tool, normalised arguments); at least 2 calls (one call is no loop, so
 *   N = 1 does not block every call);
 * - ping-pong: the calls up to and including the attempted one alternate between exactly two
 *   fingerprints A,B,A,B… for at least max(N, 4) calls (fewer than 4 calls is no alternation);
 * - retry without progress: the last N recorded outcomes were failures of one tool (any arguments)
 *   with the identical error text, and the attempted call is to that tool again.
 *
 * A hit reports `first` once per run (the runtime logs a warning then, not on every looping call);
 * a run that breaks and starts again warns again.
 */
import type { GuardName } from '../errors.ts';

export type LoopGuard = Extract<
  GuardName,
  'loop_repetition' | 'loop_ping_pong' | 'loop_retry_without_progress'
>;

export interface LoopHit {
  guard: LoopGuard;
  /** What happened, as a sentence without the consequence ("…; session terminated" is added later). */
  message: string;
  limit: number;
  observed: number;
  /** The first hit of this run. */
  first: boolean;
}

/** Error texts are compared whole but quoted shortened in messages. */
const quote = (text: string): string =>
  JSON.stringify(text.length > 120 ? `${text.slice(0, 117)}...` : text);

export class LoopHistory {
  private last: string | null = null;
  private lastTool = '';
  private previous: string | null = null;
  private previousTool = '';
  private repeatRun = 0;
  private altRun = 0;
  private repeatWarned = false;
  private altWarned = false;

  private failKey: string | null = null;
  private failError = '';
  private failRun = 0;
  private failWarned = false;

  /**
   * Records an attempted call (fingerprint `fp`, tool `toolKey` = server/tool, shown as `toolName`)
   * and answers the pattern it completes, if any.
   */
  observe(fp: string, toolKey: string, toolName: string, threshold: number): LoopHit | null {
    if (fp === this.last) {
      this.repeatRun++;
      this.altRun = 1;
    } else {
      // x ≠ last and x = the call before last: the alternation between those two goes on.
      this.altRun = fp === this.previous ? this.altRun + 1 : this.last === null ? 1 : 2;
      this.repeatRun = 1;
      this.repeatWarned = false;
      this.previous = this.last;
      this.previousTool = this.lastTool;
      this.last = fp;
      this.lastTool = toolName;
    }
    if (this.altRun < 4) this.altWarned = false;

    const repeatLimit = Math.max(threshold, 2);
    if (this.repeatRun >= repeatLimit) {
      const first = !this.repeatWarned;
      this.repeatWarned = true;
      return {
        guard: 'loop_repetition',
        message: `Loop detected: ${toolName} called ${this.repeatRun} times in a row with the same arguments (threshold ${repeatLimit})`,
        limit: repeatLimit,
        observed: this.repeatRun,
        first,
      };
    }
    const altLimit = Math.max(threshold, 4);
    if (this.altRun >= altLimit) {
      const first = !this.altWarned;
      this.altWarned = true;
      const pair =
        this.previousTool === toolName
          ? `${toolName} with two sets of arguments`
          : `${this.previousTool} and ${toolName}`;
      return {
        guard: 'loop_ping_pong',
        message: `Loop detected: ${pair} called alternately ${this.altRun} times in a row (threshold ${altLimit})`,
        limit: altLimit,
        observed: this.altRun,
        first,
      };
    }
    if (this.failRun >= threshold && toolKey === this.failKey) {
      const first = !this.failWarned;
      this.failWarned = true;
      return {
        guard: 'loop_retry_without_progress',
        message: `Loop detected: ${toolName} called again after failing ${this.failRun} times in a row with the same error ${quote(this.failError)} (threshold ${threshold})`,
        limit: threshold,
        observed: this.failRun,
        first,
      };
    }
    return null;
  }

  /** Records a call's outcome; returns how many identical failures of this tool are now in a row. */
  recordOutcome(toolKey: string, ok: boolean, error: string | null | undefined): number {
    if (ok) {
      this.failKey = null;
      this.failRun = 0;
    } else {
      const text = error ?? '';
      if (toolKey === this.failKey && text === this.failError) this.failRun++;
      else {
        this.failKey = toolKey;
        this.failError = text;
        this.failRun = 1;
        this.failWarned = false;
      }
    }
    return this.failRun;
  }

  /** Forgets everything (loop detection switched off: runs must not span the gap). */
  reset(): void {
    this.last = this.previous = this.failKey = null;
    this.repeatRun = this.altRun = this.failRun = 0;
    this.repeatWarned = this.altWarned = this.failWarned = false;
  }
}
