import { randomId } from './ids';
import type { StoreKeys } from './keys';
import type { Redis } from './redis';

/** Usage is counted per clock hour (UTC) and kept this long after the hour. */
export const USAGE_RETENTION_DAYS = 35;
/** How often a process writes what it counted. */
export const USAGE_FLUSH_MS = 1_000;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * What usage counts: each counter's name in answers, and its short name in Redis' fields.
 *
 * - requests by the class of their answer (`requests2xx` holds every answer below 400); a 429 is
 *   counted in `requests4xx` and again in `requests429`;
 * - `platformCalls`: calls a job sent to the platform (its API and its media hosts), `platformErrors`
 *   those of them that failed (an error status, a timeout, a lost connection);
 * - `outcomeUnknown`: writes that ended maybe applied (`UPSTREAM_OUTCOME_UNKNOWN`);
 * - `eventsPublished`: events stored in the tenant's log (a repeat of an event id is not counted);
 * - `webhooksDelivered` / `webhooksFailed`: delivery attempts answered 2xx / that failed (each failed
 *   attempt, retried or given up);
 * - `mediaBytesUp` / `mediaBytesDown`: bytes of the files uploaded / downloaded through the API.
 */
export const USAGE_COUNTERS = {
  requests2xx: 'r2',
  requests4xx: 'r4',
  requests429: 'r429',
  requests5xx: 'r5',
  platformCalls: 'pc',
  platformErrors: 'pe',
  outcomeUnknown: 'ou',
  eventsPublished: 'ev',
  webhooksDelivered: 'wd',
  webhooksFailed: 'wf',
  mediaBytesUp: 'mu',
  mediaBytesDown: 'md',
} as const;
export type UsageCounterName = keyof typeof USAGE_COUNTERS;
export type UsageCounts = Record<UsageCounterName, number>;

const COUNTER_NAMES = Object.keys(USAGE_COUNTERS) as UsageCounterName[];
const BY_CODE = new Map<string, UsageCounterName>(
  COUNTER_NAMES.map((name) => [USAGE_COUNTERS[name], name] as const),
);

/** Where a process counts usage (a `UsageCounter`; nothing where usage is off). */
export interface UsageRecorder {
  /**
   * Adds `n` (default 1) to `counter` of `tenantId`, under the API key and under the account it is
   * theirs of; either may be unknown (null: counted under "none" in that grouping).
   */
  add(
    tenantId: string,
    keyId: string | null | undefined,
    accountId: string | null | undefined,
    counter: UsageCounterName,
    n?: number,
  ): void;
}

/** One (tenant, hour) a process counted in: its counts so far, and which changed since the last write. */
interface HourCounts {
  tenantId: string;
  hour: number;
  counts: Map<string, number>;
  dirty: Set<string>;
}

/**
 * A process's usage, counted in memory and written to Redis about once a second (`USAGE_FLUSH_MS`),
 * so that counting costs a request no round trip.
 *
 * Each process writes its own running totals: per (tenant, hour) one HASH (`StoreKeys.usageHour`,
 * the tenant's slot), whose fields are `<process>|<k|a>:<key or account id>:<counter>` (`-` for
 * none), each the total this process counted in that hour. A write is one HSET of the fields that
 * changed (however many accounts and keys) and one EXPIREAT, per (tenant, hour) touched: setting a
 * total, not adding to one, so a write repeated (ioredis resends what was in flight when a connection
 * dropped) counts nothing twice, and the readers sum the processes' totals.
 *
 * What a process loses when it dies without closing: what it counted since its last write, about a
 * second (and, while Redis was unreachable, everything since; it is kept in memory and written when
 * Redis is back). `close` writes what is left.
 */
export class UsageCounter implements UsageRecorder {
  /** This process's name in the fields: random, so that processes never write each other's totals. */
  readonly source = randomId(8);
  private readonly hours = new Map<string, HourCounts>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  add(
    tenantId: string,
    keyId: string | null | undefined,
    accountId: string | null | undefined,
    counter: UsageCounterName,
    n = 1,
  ): void {
    if (!(n > 0) || tenantId === '') return;
    const hour = Math.floor(Date.now() / HOUR_MS);
    const id = `${tenantId}\n${hour}`;
    let counts = this.hours.get(id);
    if (counts === undefined) {
      counts = { tenantId, hour, counts: new Map(), dirty: new Set() };
      this.hours.set(id, counts);
    }
    const code = USAGE_COUNTERS[counter];
    bump(counts, `k:${keyId || '-'}:${code}`, n);
    bump(counts, `a:${accountId || '-'}:${code}`, n);
  }

  /** Writes every `USAGE_FLUSH_MS` until `close`. */
  start(everyMs = USAGE_FLUSH_MS): this {
    // A tick while a write waits (Redis away) adds nothing: the next one after it writes it all.
    this.timer ??= setInterval(() => {
      if (this.flushing === undefined) void this.flush();
    }, everyMs).unref();
    return this;
  }

  /**
   * Writes what changed since the last write (one write at a time: a call while one is under way
   * waits for it, then writes what came meanwhile). A failed write is logged (`onError`) and its
   * fields written again by the next.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.write().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  /** Stops the timer and writes what is left, waiting for Redis at most `timeoutMs`. */
  async close(timeoutMs = 3_000): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    const late = new Promise<void>((done) => setTimeout(done, timeoutMs).unref());
    await Promise.race([this.flush(), late]);
  }

  private async write(): Promise<void> {
    const currentHour = Math.floor(Date.now() / HOUR_MS);
    const writes: Promise<void>[] = [];
    for (const [id, hour] of this.hours) {
      if (hour.dirty.size === 0) {
        // A past hour whose totals are written: nothing will be added to it.
        if (hour.hour < currentHour) this.hours.delete(id);
        continue;
      }
      const fields = hour.dirty;
      hour.dirty = new Set();
      writes.push(
        this.writeHour(hour, fields).catch((error: unknown) => {
          for (const field of fields) hour.dirty.add(field);
          this.onError(error);
        }),
      );
    }
    await Promise.all(writes);
  }

  private async writeHour(hour: HourCounts, fields: Set<string>): Promise<void> {
    const key = this.keys.usageHour(hour.tenantId, hour.hour);
    const totals: Record<string, string> = {};
    for (const field of fields) totals[`${this.source}|${field}`] = String(hour.counts.get(field) ?? 0);
    const expireAt = Math.ceil(((hour.hour + 1) * HOUR_MS + USAGE_RETENTION_DAYS * DAY_MS) / 1000);
    // One slot (one key): a pipeline a Cluster takes; each command's failure is in its reply.
    const replies = (await this.redis.pipeline().hset(key, totals).expireat(key, expireAt).exec()) ?? [];
    const failed = replies.find(([error]) => error !== null)?.[0];
    if (failed) throw failed;
  }
}

function bump(hour: HourCounts, field: string, n: number): void {
  hour.counts.set(field, (hour.counts.get(field) ?? 0) + n);
  hour.dirty.add(field);
}

/** How usage is grouped: by API key, or by service account. */
export type UsageGrouping = 'key' | 'account';
/** How long a row of usage spans: a clock hour or a day (UTC). */
export type UsageBucket = 'hour' | 'day';

/** One row of usage: a bucket's counts of one key or account (null: counted without one). */
export interface UsageRow extends UsageCounts {
  /** When the bucket starts (Unix ms). */
  start: number;
  id: string | null;
}

/** No usage yet: every counter at 0. */
export const noUsage = (): UsageCounts =>
  Object.fromEntries(COUNTER_NAMES.map((name) => [name, 0])) as UsageCounts;

/** The tenants' usage as the processes wrote it (`UsageCounter`), summed and grouped. */
export class UsageStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /**
   * The usage of the hours `fromMs` to `toMs` fall in (both included), grouped by key or account and
   * summed per hour or per day, oldest first; only the ids `visible` says (null: counted without
   * one). One HGETALL per hour, pipelined: the hours of a tenant share its slot.
   */
  async rows(
    tenantId: string,
    options: {
      fromMs: number;
      toMs: number;
      groupBy: UsageGrouping;
      bucket: UsageBucket;
      visible: (id: string | null) => boolean;
    },
  ): Promise<UsageRow[]> {
    const first = Math.floor(options.fromMs / HOUR_MS);
    const last = Math.floor(options.toMs / HOUR_MS);
    const read = this.redis.pipeline();
    for (let hour = first; hour <= last; hour++) read.hgetall(this.keys.usageHour(tenantId, hour));
    const replies = (await read.exec()) ?? [];
    const dimension = options.groupBy === 'key' ? 'k' : 'a';
    const rows = new Map<string, UsageRow>();
    replies.forEach(([error, fields], i) => {
      if (error) throw error;
      const hour = first + i;
      const start =
        options.bucket === 'hour' ? hour * HOUR_MS : Math.floor((hour * HOUR_MS) / DAY_MS) * DAY_MS;
      for (const [field, value] of Object.entries(fields as Record<string, string>)) {
        const parsed = parseField(field);
        if (parsed === undefined || parsed.dimension !== dimension || !options.visible(parsed.id)) continue;
        const id = `${start}\n${parsed.id ?? ''}`;
        let row = rows.get(id);
        if (row === undefined) {
          row = { start, id: parsed.id, ...noUsage() };
          rows.set(id, row);
        }
        row[parsed.counter] += Number(value) || 0;
      }
    });
    return [...rows.values()].sort((a, b) => a.start - b.start || (a.id ?? '').localeCompare(b.id ?? ''));
  }
}

/** `<process>|<k|a>:<id>:<code>`, or undefined for a field of another shape. */
function parseField(
  field: string,
): { dimension: string; id: string | null; counter: UsageCounterName } | undefined {
  const bar = field.indexOf('|');
  const rest = field.slice(bar + 1);
  const first = rest.indexOf(':');
  const lastColon = rest.lastIndexOf(':');
  if (bar < 0 || first < 0 || lastColon <= first) return undefined;
  const counter = BY_CODE.get(rest.slice(lastColon + 1));
  if (counter === undefined) return undefined;
  const id = rest.slice(first + 1, lastColon);
  return { dimension: rest.slice(0, first), id: id === '-' ? null : id, counter };
}
