import type { TimeAxis } from '../../lib/time-axis.ts';

/** Display ms back to real epoch ms: the inverse of TimeAxis.toDisplay (gaps scale linearly). */
export function fromDisplay(axis: TimeAxis, d: number): number {
  let saved = 0;
  for (const g of axis.gaps) {
    if (d < g.displayStart) break;
    if (d < g.displayStart + g.displayWidth)
      return g.start + ((d - g.displayStart) / (g.displayWidth || 1)) * (g.end - g.start);
    saved += g.end - g.start - g.displayWidth;
  }
  return axis.start + d + saved;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

const TICKS = [0, 0.25, 0.5, 0.75, 1];

/** The waterfall's time scale: offsets from the session start, and the compressed gaps. */
export function AxisHeader({ axis }: { axis: TimeAxis }) {
  return (
    <div class="wf-axis" aria-hidden="true">
      <div class="wf-axis-name">
        {axis.gaps.length > 0 &&
          `${axis.gaps.length} idle gap${axis.gaps.length > 1 ? 's' : ''} compressed`}
      </div>
      <div class="wf-axis-lane">
        {TICKS.map((f) => (
          <span key={f} class="tick" style={{ left: `${f * 100}%` }}>
            +{duration(fromDisplay(axis, f * axis.length) - axis.start)}
          </span>
        ))}
        {axis.gaps.map((g) => (
          <span
            key={g.start}
            class="gap"
            style={{ left: `${(g.displayStart / (axis.length || 1)) * 100}%` }}
            title={`idle ${duration(g.end - g.start)}`}
          >
            ⫽
          </span>
        ))}
      </div>
    </div>
  );
}
