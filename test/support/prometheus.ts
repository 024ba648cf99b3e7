/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for the metrics tests:
 * it throws on anything Prometheus would refuse or read otherwise, naming the line: a malformed
 * name, label or value, an unknown TYPE, a sample before its family's TYPE or away from its
 * family's other lines, a series twice, a negative counter, a histogram whose buckets are not
 * cumulative or whose `+Inf` bucket is not its count.
 */

export interface Sample {
  /** The sample's own name: the family's, or with `_bucket`, `_sum`, `_count` for a histogram. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string | undefined;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export class ExpositionError extends Error {
  constructor(line: number, problem: string) {
    super(`line ${line}: ${problem}`);
  }
}

/** Every family of a scrape, by name, in order. */
export function parsePrometheus(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  /** Families whose lines are over: another family's line came after them. */
  const closed = new Set<string>();
  const seen = new Set<string>();
  let current: string | undefined;
  const enter = (name: string, at: number) => {
    if (current === name) return;
    if (closed.has(name)) throw new ExpositionError(at, `${name}: its lines are not together`);
    if (current !== undefined) closed.add(current);
    current = name;
  };
  const lines = text.split('\n');
  if (text !== '' && !text.endsWith('\n')) throw new ExpositionError(lines.length, 'no newline at the end');
  lines.forEach((line, i) => {
    const at = i + 1;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
      if (!meta) return; // a plain comment
      const [, kind, name = '', rest = ''] = meta;
      if (!METRIC_NAME.test(name)) throw new ExpositionError(at, `bad metric name ${name}`);
      enter(name, at);
      const family = families.get(name) ?? { name, type: 'untyped' as const, help: undefined, samples: [] };
      if (kind === 'HELP') {
        if (family.help !== undefined) throw new ExpositionError(at, `${name}: HELP twice`);
        family.help = unescapeText(rest, at, false);
      } else {
        if (!TYPES.has(rest)) throw new ExpositionError(at, `${name}: unknown type ${rest}`);
        if (families.get(name)?.samples.length) throw new ExpositionError(at, `${name}: TYPE after samples`);
        if (families.has(name) && family.type !== 'untyped')
          throw new ExpositionError(at, `${name}: TYPE twice`);
        family.type = rest as MetricFamily['type'];
      }
      families.set(name, family);
      return;
    }
    const sample = parseSample(line, at);
    const familyName = familyOf(sample.name, families);
    enter(familyName, at);
    const family = families.get(familyName) ?? {
      name: familyName,
      type: 'untyped' as const,
      help: undefined,
      samples: [],
    };
    families.set(familyName, family);
    const series = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(series)) throw new ExpositionError(at, `${series}: the same series twice`);
    seen.add(series);
    if (family.type === 'counter' && !(sample.value >= 0))
      throw new ExpositionError(at, `${sample.name}: a counter must be >= 0`);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** A histogram's or summary's sample belongs to the family it suffixes, when that family is typed so. */
function familyOf(name: string, families: Map<string, MetricFamily>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, -suffix.length);
    const type = families.get(base)?.type;
    if (type === 'histogram' || (type === 'summary' && suffix !== '_bucket')) return base;
  }
  return name;
}

function parseSample(line: string, at: number): Sample {
  const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  if (!head) throw new ExpositionError(at, `bad sample: ${line}`);
  const name = head[1] as string;
  let pos = name.length;
  const labels: Record<string, string> = {};
  if (line[pos] === '{') {
    pos++;
    while (line[pos] !== '}') {
      const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(pos))?.[0];
      if (labelName === undefined || !LABEL_NAME.test(labelName) || labelName.startsWith('__'))
        throw new ExpositionError(at, `bad label name in ${line}`);
      pos += labelName.length;
      if (line.slice(pos, pos + 2) !== '="') throw new ExpositionError(at, `expected =" after ${labelName}`);
      pos += 2;
      let raw = '';
      while (line[pos] !== '"') {
        if (pos >= line.length) throw new ExpositionError(at, `unterminated value of ${labelName}`);
        if (line[pos] === '\\') {
          raw += line.slice(pos, pos + 2);
          pos += 2;
        } else raw += line[pos++];
      }
      pos++;
      if (Object.hasOwn(labels, labelName)) throw new ExpositionError(at, `label ${labelName} twice`);
      labels[labelName] = unescapeText(raw, at, true);
      if (line[pos] === ',') pos++;
      else if (line[pos] !== '}') throw new ExpositionError(at, `expected , or } in ${line}`);
    }
    pos++;
  }
  const rest = line.slice(pos);
  const parts = /^ (\S+)(?: (-?\d+))?$/.exec(rest);
  if (!parts) throw new ExpositionError(at, `bad value part "${rest}"`);
  return { name, labels, value: parseValue(parts[1] as string, at) };
}

/** A value as Prometheus reads it (Go's ParseFloat): decimal, or NaN and ±Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string, at: number): number {
  const special = /^([-+]?)(inf|infinity|nan)$/i.exec(text);
  if (special) {
    if (special[2]?.toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text))
    throw new ExpositionError(at, `bad value ${text}`);
  return Number(text);
}

/** HELP text takes `\\` and `\n`; a label value also `\"`. Any other escape is refused. */
function unescapeText(raw: string, at: number, quoted: boolean): string {
  return raw.replace(/\\(.?)/g, (_all, next: string) => {
    if (next === '\\') return '\\';
    if (next === 'n') return '\n';
    if (next === '"' && quoted) return '"';
    throw new ExpositionError(at, `bad escape \\${next}`);
  });
}

/** Each series' buckets rise with `le`, end with `+Inf`, whose count is `_count`; `_sum` is there. */
function checkHistogram(family: MetricFamily): void {
  const bySeries = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const series = bySeries.get(key) ?? { buckets: [] };
    bySeries.set(key, series);
    if (sample.name === `${family.name}_bucket`) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      series.buckets.push([parseValue(le, 0), sample.value]);
    } else if (sample.name === `${family.name}_sum`) series.sum = sample.value;
    else if (sample.name === `${family.name}_count`) series.count = sample.value;
    else throw new Error(`${family.name}: sample ${sample.name} is not a histogram's`);
  }
  for (const [key, series] of bySeries) {
    const where = `${family.name}${key}`;
    const last = series.buckets.at(-1);
    if (last?.[0] !== Number.POSITIVE_INFINITY) throw new Error(`${where}: no +Inf bucket`);
    if (series.count === undefined || series.sum === undefined)
      throw new Error(`${where}: no _sum or _count`);
    if (last[1] !== series.count)
      throw new Error(`${where}: +Inf bucket ${last[1]} is not _count ${series.count}`);
    series.buckets.forEach(([le, count], i) => {
      const before = series.buckets[i - 1];
      if (before && (le <= before[0] || count < before[1]))
        throw new Error(`${where}: buckets not rising at le=${le}`);
    });
  }
}

/**
 * The samples named `name` whose labels include `labels` (others may be there), summed; 0 when none
 * matches.
 */
export function sampleSum(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const family = families.get(familyOf(name, families));
  let sum = 0;
  for (const sample of family?.samples ?? [])
    if (sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v))
      sum += sample.value;
  return sum;
}
