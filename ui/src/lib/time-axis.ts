/**
 * The waterfall's shared time axis: real epoch milliseconds to display milliseconds, with idle
 * gaps (no span running) longer than a threshold squeezed to a fixed width and reported as markers.
 */

export interface IdleGap {
  /** Real epoch milliseconds. */
  start: number;
  end: number;
  /** Where the marker sits on the display axis, and its width there (display ms). */
  displayStart: number;
  displayWidth: number;
}

export interface TimeAxis {
  start: number;
  end: number;
  /** Display length in ms: the real length less what the compressed gaps saved. */
  length: number;
  gaps: IdleGap[];
  /** Real ms to display ms in [0, length]; values outside [start, end] clamp. */
  toDisplay(ms: number): number;
  /** Real ms to a fraction of the axis in [0, 1]. */
  toFraction(ms: number): number;
}

export interface Interval {
  start: number;
  end: number;
}

export function linearAxis(start: number, end: number): TimeAxis {
  return compressIdleGaps([{ start, end }], { thresholdMs: Infinity, gapWidthMs: 0 });
}

/** O(n log n): sorts the intervals once; each lookup is a binary search over the gaps. */
export function compressIdleGaps(
  intervals: Iterable<Interval>,
  opts: { thresholdMs: number; gapWidthMs: number },
): TimeAxis {
  const sorted = [...intervals]
    .filter((i) => Number.isFinite(i.start))
    .sort((a, b) => a.start - b.start);
  const start = sorted[0]?.start ?? 0;
  let reach = start;
  let saved = 0;
  const gaps: IdleGap[] = [];
  for (const i of sorted) {
    const idle = i.start - reach;
    if (idle > opts.thresholdMs && idle > opts.gapWidthMs) {
      const displayStart = reach - start - saved;
      gaps.push({ start: reach, end: i.start, displayStart, displayWidth: opts.gapWidthMs });
      saved += idle - opts.gapWidthMs;
    }
    reach = Math.max(reach, i.end);
  }
  const end = reach;
  const length = end - start - saved;
  const toDisplay = (ms: number): number => {
    const t = Math.min(Math.max(ms, start), end);
    let lo = 0;
    let hi = gaps.length; // the first gap that ends after t
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (gaps[mid]!.end <= t) lo = mid + 1;
      else hi = mid;
    }
    const gap = gaps[lo];
    if (gap && t > gap.start) {
      return gap.displayStart + ((t - gap.start) / (gap.end - gap.start)) * gap.displayWidth;
    }
    const before = lo > 0 ? gaps[lo - 1]! : undefined;
    if (!before) return t - start;
    return before.displayStart + before.displayWidth + (t - before.end);
  };
  const toFraction = (ms: number) => (length > 0 ? toDisplay(ms) / length : 0);
  return { start, end, length, gaps, toDisplay, toFraction };
}
