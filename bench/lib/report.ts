/** One line of the final table. Figures are kept as numbers too, for the JSON results. */
export interface Row {
  scenario: string;
  metric: string;
  gateway: string;
  /** The plain proxy's figure, or the reference the target compares with (named in `metric`). */
  baseline: string;
  ratio: string;
  target: string;
  /** `invalid`: the scenario's answers were not what its figures count on (no figure is given). */
  verdict: 'met' | 'missed' | 'n/a' | 'invalid';
  values?: { gateway?: number; baseline?: number; ratio?: number };
}

export interface ScenarioOutcome {
  rows: Row[];
  /** Lines printed under the table: errors, statuses, what limited a figure. */
  notes: string[];
  details: Record<string, unknown>;
}

export const verdict = (met: boolean): Row['verdict'] => (met ? 'met' : 'missed');

/** A row for a scenario that cannot run on this build; never a made-up figure. */
export function notApplicable(scenario: string, metric: string, target: string, why: string): Row {
  return { scenario, metric, gateway: why, baseline: '—', ratio: '—', target, verdict: 'n/a' };
}

export function num(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return '—';
  return value >= 100 ? `${num(value)} ms` : `${num(value, 1)} ms`;
}

export function table(rows: Row[]): string {
  const header = ['scenario', 'metric', 'gateway', 'baseline / ref', 'ratio', 'target', 'result'];
  const cells = rows.map((row) => [
    row.scenario,
    row.metric,
    row.gateway,
    row.baseline,
    row.ratio,
    row.target,
    row.verdict,
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...cells.map((line) => (line[i] ?? '').length)),
  );
  const line = (values: string[]) =>
    `| ${values.map((value, i) => value.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...cells.map(line),
  ].join('\n');
}

/** The `p` quantile (0 to 1) of values sorted ascending: the smallest value at or above it. */
export const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN);

/** Median of a few repeated measurements: one noisy repetition does not move it much. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
