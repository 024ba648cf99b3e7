import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/**
 * Per-account scheduling ("lanes") in front of BullMQ; docs/scheduling.md explains the model.
 * Every decision is one Lua script over the lane's keys, so concurrent API and worker processes
 * never disagree about slots, pacing or the gap.
 */
export interface LaneSettings {
  /** Platform calls in flight per account, across every worker process. @defaultValue 2 */
  concurrency: number;
  /** Minimum time between two call starts of one account (from the per-minute rate). */
  intervalMs: number;
  /** Minimum time between two starts of the gapped operation (chat media stats) of one account. */
  gapMs: number;
  /** Unfinished jobs an account may have; beyond it callers get 429. */
  maxBacklog: number;
}

/** A slot is leased; a lease past its deadline with no BullMQ lock on its job is reclaimed. */
export const LANE_LEASE_MS = 60_000;
/** How long a free slot may be held for a gapped job whose gap is about to end. */
const HOLD_MS = 1_000;
/** Added to the gap: the time between a claim and the request reaching the platform. */
const GAP_MARGIN_MS = 250;
/** Identical media-stats requests share a job while it is unfinished, at most this long. */
const DEDUPE_TTL_MS = 10 * 60_000;

/** A job to wake: set its BullMQ delay to `delayMs` (0 = now). */
export interface Wake {
  jobId: string;
  delayMs: number;
}

export type Admission =
  | { kind: 'share'; jobId: string }
  | { kind: 'full'; backlog: number; retryAfterSeconds: number }
  | { kind: 'ok'; selfDelayMs: number | undefined; wakes: Wake[] };

export type Claim =
  | { kind: 'run'; wakes: Wake[] }
  | { kind: 'delay'; delayMs: number; wakes: Wake[] }
  | { kind: 'park'; wakes: Wake[] };

const lua = (name: string) => readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8');
const PRELUDE = lua('prelude');
const SCRIPTS = ['admit', 'claim', 'requeue', 'release', 'withdraw', 'pause', 'touch', 'kick'] as const;
type ScriptName = (typeof SCRIPTS)[number];

type LaneRedis = Redis &
  Record<`lane_${ScriptName}`, (...args: (string | number)[]) => Promise<(string | number)[]>>;

export class AccountLanes {
  private readonly redis: LaneRedis;
  private readonly settingsArgs: (string | number)[];

  constructor(
    redis: Redis,
    /** BullMQ's key prefix for the queue, e.g. `{cg:q}:operations:`. */
    private readonly jobPrefix: string,
    private readonly settings: LaneSettings,
  ) {
    for (const name of SCRIPTS) {
      if (!(`lane_${name}` in redis))
        redis.defineCommand(`lane_${name}`, { numberOfKeys: 6, lua: `${PRELUDE}\n${lua(name)}` });
    }
    this.redis = redis as LaneRedis;
    this.settingsArgs = [
      settings.concurrency,
      settings.intervalMs,
      settings.gapMs + GAP_MARGIN_MS,
      LANE_LEASE_MS,
      HOLD_MS,
    ];
  }

  async admit(
    lane: string,
    jobId: string,
    options: { gapped: boolean; dedupeKey?: string },
  ): Promise<Admission> {
    const dedupe = options.dedupeKey === undefined ? '' : this.dedupeKey(lane, options.dedupeKey);
    const reply = await this.call(
      'admit',
      lane,
      jobId,
      options.gapped ? 1 : 0,
      this.settings.maxBacklog,
      dedupe,
      DEDUPE_TTL_MS,
    );
    const [kind, ...rest] = reply;
    if (kind === 'share') return { kind: 'share', jobId: String(rest[0]) };
    if (kind === 'full') {
      const backlog = Number(rest[0]);
      // When a twentieth of the backlog will have started at the account's pace (a gapped request's
      // pace is its gap): coming back sooner would only meet a full lane again.
      const pace = options.gapped ? this.settings.gapMs : this.settings.intervalMs;
      const retryAfterSeconds = Math.max(1, Math.ceil((Math.ceil(backlog / 20) * pace) / 1000));
      return { kind: 'full', backlog, retryAfterSeconds };
    }
    const wakes = toWakes(rest);
    const self = wakes.find((wake) => wake.jobId === jobId);
    return { kind: 'ok', selfDelayMs: self?.delayMs, wakes: wakes.filter((wake) => wake !== self) };
  }

  async claim(lane: string, jobId: string, gapped: boolean): Promise<Claim> {
    const [kind, ...rest] = await this.call('claim', lane, jobId, gapped ? 1 : 0);
    if (kind === 'run') return { kind: 'run', wakes: toWakes(rest) };
    if (kind === 'delay') return { kind: 'delay', delayMs: Number(rest[0]), wakes: toWakes(rest.slice(1)) };
    return { kind: 'park', wakes: toWakes(rest) };
  }

  /** After a `park` claim, once the job sits in BullMQ's delayed set. */
  async requeue(lane: string, jobId: string, gapped: boolean): Promise<Wake[]> {
    return toWakes(await this.call('requeue', lane, jobId, gapped ? 1 : 0));
  }

  /** The job was admitted but could not be added: it leaves the lane. */
  async withdraw(lane: string, jobId: string, dedupeKey?: string): Promise<Wake[]> {
    const dedupe = dedupeKey === undefined ? '' : this.dedupeKey(lane, dedupeKey);
    return toWakes(await this.call('withdraw', lane, jobId, dedupe));
  }

  /** A gapped job sends another request (after a re-login): the gap counts from now. */
  async touch(lane: string): Promise<void> {
    await this.call('touch', lane);
  }

  async release(lane: string, jobId: string, final: boolean, dedupeKey?: string): Promise<Wake[]> {
    const dedupe = dedupeKey === undefined ? '' : this.dedupeKey(lane, dedupeKey);
    return toWakes(await this.call('release', lane, jobId, final ? 1 : 0, dedupe));
  }

  async pause(lane: string, forMs: number): Promise<void> {
    await this.call('pause', lane, forMs);
  }

  async kick(lane: string): Promise<Wake[]> {
    return toWakes(await this.call('kick', lane));
  }

  /** Lanes whose leases are due for a check (crash recovery); see `Sweeper` in the worker. */
  async dueLanes(limit = 100): Promise<string[]> {
    return this.redis.zrangebyscore(this.lanesKey(), '-inf', Date.now(), 'LIMIT', 0, limit);
  }

  private call(script: ScriptName, lane: string, ...args: (string | number)[]) {
    return this.redis[`lane_${script}`](
      ...this.keys(lane),
      lane,
      this.jobPrefix,
      ...this.settingsArgs,
      ...args,
    );
  }

  private keys(lane: string): string[] {
    const base = `${this.base()}lane:${lane}`;
    return [`${base}:run`, `${base}:wait`, `${base}:gwait`, `${base}:state`, `${base}:jobs`, this.lanesKey()];
  }

  private dedupeKey(lane: string, key: string): string {
    return `${this.base()}lane:${lane}:dedupe:${key}`;
  }

  private lanesKey(): string {
    return `${this.base()}lanes`;
  }

  /** Lane keys live beside the queue's (`{prefix:q}:lane:…`) so the scripts stay in its Cluster slot. */
  private base(): string {
    return this.jobPrefix.replace(/operations:$/, '');
  }
}

function toWakes(flat: (string | number)[]): Wake[] {
  const wakes: Wake[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2)
    wakes.push({ jobId: String(flat[i]), delayMs: Math.max(0, Number(flat[i + 1])) });
  return wakes;
}
