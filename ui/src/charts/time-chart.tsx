import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './charts.css';

export interface ChartSeries {
  label: string;
  /** One value per x; null leaves a gap. */
  values: (number | null)[];
  /** A CSS colour or variable name (`--bad`); the accent colour by default. */
  color?: string;
  /** Unit shown after values in the legend (`ms`, `$`). */
  unit?: string;
}

export interface TimeChartProps {
  /** Epoch milliseconds, ascending, one per value of each series. */
  x: number[];
  series: ChartSeries[];
  /** What the chart shows, for screen readers (the figure's accessible name). */
  label: string;
  height?: number;
  /** Bars instead of lines (counts per bucket). */
  bars?: boolean;
}

function cssColor(c: string | undefined): string {
  const name = c ?? '--accent';
  if (!name.startsWith('--')) return name;
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#0b5cd5';
}

/**
 * A time-series chart (uPlot: canvas, ~50 KB, fast with tens of thousands of points). Import it
 * only from lazily loaded pages (pages.ts `lazyPage`) so the first paint does not carry it. Its
 * accessible name is `label`; the numbers themselves should also be in a table on the page.
 */
export function TimeChart({ x, series, label, height = 180, bars = false }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const fg = cssColor('--fg-2');
    const grid = cssColor('--border');
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      scales: { x: { time: true } },
      axes: [axis, { ...axis, size: 56 }],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: cssColor(s.color),
          width: 1.5,
          fill: bars ? cssColor(s.color) : undefined,
          paths: bars ? uPlot.paths.bars?.({ size: [0.8, 24] }) : undefined,
          points: { show: x.length < 60 },
          value: (_u: uPlot, v: number | null) =>
            v === null || v === undefined ? '–' : `${+v.toFixed(3)}${s.unit ? ` ${s.unit}` : ''}`,
        })),
      ],
    };
    const data: uPlot.AlignedData = [x.map((t) => t / 1000), ...series.map((s) => s.values)];
    const plot = new uPlot(opts, data, el);
    const resize = new ResizeObserver(() => {
      plot.setSize({ width: Math.max(200, el.clientWidth), height });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series, height, bars]);
  return <div class="time-chart" role="img" aria-label={label} ref={box} />;
}
