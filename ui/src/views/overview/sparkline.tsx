/** A tiny SVG sparkline (no library: a polyline over the values), with a text alternative. */
export function Sparkline({
  values,
  label,
  bad,
}: {
  values: number[];
  label: string;
  bad?: boolean;
}) {
  const max = Math.max(1, ...values);
  const w = 200;
  const h = 40;
  const step = values.length > 1 ? w / (values.length - 1) : w;
  const points = values
    .map((v, i) => `${(i * step).toFixed(1)},${(h - 2 - (v / max) * (h - 4)).toFixed(1)}`)
    .join(' ');
  return (
    <svg
      class={bad ? 'spark bad' : 'spark'}
      viewBox={`0 0 ${w} ${h}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={label}
    >
      <polyline
        points={points}
        fill="none"
        stroke="currentColor"
        stroke-width="2"
        vector-effect="non-scaling-stroke"
      />
    </svg>
  );
}
