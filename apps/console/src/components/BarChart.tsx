/** One bar: its label under it and its value. */
export interface Bar {
  label: string;
  value: number;
}

const WIDTH = 560;
const HEIGHT = 160;
const AXIS = 18;

/** A small hand-drawn SVG bar chart, bars left to right, each titled with its label and value. */
export function BarChart({ bars, title }: { bars: readonly Bar[]; title: string }) {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const slot = bars.length === 0 ? WIDTH : WIDTH / bars.length;
  const plot = HEIGHT - AXIS;
  return (
    <svg className="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={title}>
      <title>{title}</title>
      <line x1={0} y1={plot} x2={WIDTH} y2={plot} className="axis" />
      {bars.map((bar, index) => {
        const height = (bar.value / max) * (plot - 14);
        const x = index * slot;
        return (
          <g key={bar.label} data-bar={bar.label}>
            <title>{`${bar.label}: ${bar.value}`}</title>
            <rect x={x + slot * 0.15} y={plot - height} width={slot * 0.7} height={height} className="bar" />
            <text x={x + slot / 2} y={plot - height - 3} textAnchor="middle" className="value">
              {bar.value}
            </text>
            {bars.length <= 31 && (
              <text x={x + slot / 2} y={HEIGHT - 4} textAnchor="middle" className="label">
                {bar.label}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
