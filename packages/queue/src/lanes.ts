import type { Redis } from 'ioredis';
import { type LaneSpace, laneKeyList } from './keys';
import { luaScript } from './scripts';

/**
 * Scheduling ("lanes") in front of BullMQ: one lane per platform account for the operations, one per
 * webhook endpoint for the deliveries; docs/scheduling.md explains the model. Every decision is one
 * Lua script over the lane's keys, so concurrent processes never disagree about slots, pacing or the
 * gap.
 */
export interface LaneSettings {
  /** Jobs of one lane in flight (an account's platform calls), across every process. @defaultValue 2 */
  concurrency: number;
  /** Minimum time between two starts of one lane (an account's, from the per-minute rate); 0: none. */
  intervalMs: number;
  /** Minimum time between two starts of the gapped operation (chat media stats) of one account. */
  gapMs: number;
  /** Unfinished jobs a lane may have; beyond it `admit` answers `full` (callers get 429). */
  maxBacklog: number;
  /** How long a slot is leased (`LANE_LEASE_MS` unless given). */
  leaseMs?: number;
}

/**
 * A slot is leased: a lease past its deadline with no BullMQ lock on its job is reclaimed (its job's
 * process died, or its wake-up was lost), and an admitted job not added within a lease never will be.
 */
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
  | { kind: 'full'; retryAfterSeconds: number }
  /** Granted to start after `delayMs` (0 = now), or, with no delay, parked until its lane wakes it. */
  | { kind: 'ok'; delayMs: number | undefined };

export type Claim =
  | { kind: 'run'; wakes: Wake[] }
  | { kind: 'delay'; delayMs: number; wakes: Wake[] }
  | { kind: 'park'; wakes: Wake[] }
  /** Its caller cancelled it while it waited: it fails without a platform call. */
  | { kind: 'cancelled'; wakes: Wake[] };

/**
 * What `cancel` did: `cancelled` (the job is woken with the others to wake, so that it ends at once),
 * `already` (cancelled before), `refused` (a worker has it or is about to, or it has ended).
 */
export type Cancellation = { kind: 'cancelled'; wakes: Wake[] } | { kind: 'already' } | { kind: 'refused' };

/** What `Lanes.inspect` reads of a lane (Unix ms, Redis's clock; null: nothing holds it back). */
export interface LaneView {
  /** Redis's clock when it was read. */
  now: number;
  /** Requests granted a slot: running, or about to. */
  inFlight: number;
  /** Every unfinished request of the lane (the backlog bound, `maxBacklog`). */
  backlog: number;
  /** Of them, those waiting for a slot (the gapped one on its timed wake included). */
  waiting: number;
  /** The earliest next start the pacing allows. */
  nextStartAt: number | null;
  /** A platform 429 (or sessions that never hold) pauses the lane until then. */
  pausedUntil: number | null;
  pauseWhy: string | null;
  /** The earliest start of the next gapped request (media stats): the per-account gap's end. */
  nextGappedAt: number | null;
}

export interface AdmitRequest {
  lane: string;
  jobId: string;
  gapped: boolean;
  dedupeKey?: string;
}

export interface ClaimRequest {
  lane: string;
  jobId: string;
  gapped: boolean;
}

export interface ReleaseRequest {
  lane: string;
  jobId: string;
  /** The job will not run again: it leaves the backlog (and its sharing key). */
  final: boolean;
  dedupeKey?: string;
  /** A gapped job (media stats): if it was the timed wake, it stops being one when it ends. */
  gapped?: boolean;
  /** A gapped job its claim let through that sent nothing to the platform: it gives its gap back. */
  idle?: boolean;
}

const SCRIPTS = [
  'admit',
  'claim',
  'requeue',
  'release',
  'withdraw',
  'pause',
  'touch',
  'kick',
  'forget',
  'cancel',
] as const;
type ScriptName = (typeof SCRIPTS)[number];

type LaneRedis = Redis & Record<`lane_${ScriptName}`, (...args: (string | number)[]) => Promise<unknown[]>>;

/**
 * The lane scripts (lua/), one method each. Every call passes the keys it touches as KEYS (the
 * common ones, then per lane its keys and the job's own: lua/prelude.lua) and the settings before
 * the script's own arguments.
 */
export class Lanes {
  private readonly redis: LaneRedis;
  private readonly settingsArgs: (string | number)[];

  constructor(
    redis: Redis,
    private readonly keys: LaneSpace,
    private readonly settings: LaneSettings,
  ) {
    // The number of keys depends on the lanes a call touches, so it is passed with each call.
    for (const name of SCRIPTS) {
      if (!(`lane_${name}` in redis)) redis.defineCommand(`lane_${name}`, { lua: luaScript(name) });
    }
    this.redis = redis as LaneRedis;
    this.settingsArgs = [
      keys.jobPrefix,
      settings.concurrency,
      settings.intervalMs,
      settings.gapMs + GAP_MARGIN_MS,
      settings.leaseMs ?? LANE_LEASE_MS,
      HOLD_MS,
    ];
  }

  /**
   * Admits jobs to their lanes in one script (the API admits what arrived together). Wakes of jobs
   * outside `requests` (granted by these admissions' dispatches) are returned for the caller to
   * apply once the new jobs are added.
   */
  async admit(requests: AdmitRequest[]): Promise<{ admissions: Admission[]; wakes: Wake[] }> {
    const keys: string[] = [];
    const args: (string | number)[] = [this.settings.maxBacklog, DEDUPE_TTL_MS];
    for (const r of requests) {
      keys.push(...this.laneKeys(r.lane), ...this.dedupeKeys(r.lane, r.dedupeKey));
      args.push(r.lane, r.jobId, r.gapped ? 1 : 0, r.dedupeKey === undefined ? 0 : 1);
    }
    const replies = (await this.call('admit', keys, args)) as (string | number)[][];
    const ids = new Set(requests.map((r) => r.jobId));
    const own = new Map<string, number>();
    const wakes: Wake[] = [];
    for (const [kind, ...rest] of replies) {
      if (kind !== 'ok') continue;
      for (const wake of toWakes(rest)) {
        if (ids.has(wake.jobId)) own.set(wake.jobId, wake.delayMs);
        else wakes.push(wake);
      }
    }
    const admissions = replies.map(([kind, ...rest], i): Admission => {
      const request = requests[i] as AdmitRequest;
      if (kind === 'share') return { kind: 'share', jobId: String(rest[0]) };
      if (kind === 'full') {
        return { kind: 'full', retryAfterSeconds: this.backlogWait(Number(rest[0]), Number(rest[1] ?? 0)) };
      }
      return { kind: 'ok', delayMs: own.get(request.jobId) };
    });
    return { admissions, wakes };
  }

  /**
   * Seconds until a twentieth of a full backlog has left, so that coming back is worth it: the other
   * jobs leave at the account's pace, media-stats jobs one per gap (a backlog of them alone frees a
   * place a minute). Coming back sooner would only meet a full lane again.
   */
  private backlogWait(backlog: number, gapped: number): number {
    const places = Math.ceil(backlog / 20);
    const others = Math.max(0, backlog - gapped);
    const ms =
      places <= others
        ? places * this.settings.intervalMs
        : Math.max(others * this.settings.intervalMs, (places - others) * this.settings.gapMs);
    return Math.max(1, Math.ceil(ms / 1000));
  }

  /** Whether each job (one, or a batch's) may call the platform now. */
  async claim(requests: ClaimRequest[]): Promise<Claim[]> {
    const keys = requests.flatMap((r) => [...this.laneKeys(r.lane), this.keys.cancelled(r.jobId)]);
    const args = requests.flatMap((r) => [r.lane, r.jobId, r.gapped ? 1 : 0]);
    const replies = (await this.call('claim', keys, args)) as (string | number)[][];
    return replies.map(([kind, ...rest]): Claim => {
      if (kind === 'run') return { kind: 'run', wakes: toWakes(rest) };
      if (kind === 'delay') return { kind: 'delay', delayMs: Number(rest[0]), wakes: toWakes(rest.slice(1)) };
      if (kind === 'cancelled') return { kind: 'cancelled', wakes: [] };
      return { kind: 'park', wakes: toWakes(rest) };
    });
  }

  /** After a `park` claim, once the job sits in BullMQ's delayed set. */
  async requeue(lane: string, jobId: string, gapped: boolean): Promise<Wake[]> {
    const keys = [...this.laneKeys(lane), this.keys.cancelled(jobId)];
    return toWakes(await this.call('requeue', keys, [lane, jobId, gapped ? 1 : 0]));
  }

  /**
   * The job was admitted but could not be added: it leaves the lane. `gapped`: whether it was
   * admitted gapped (unknown: looked for among the gapped ones too).
   */
  async withdraw(lane: string, jobId: string, dedupeKey?: string, gapped?: boolean): Promise<Wake[]> {
    const keys = [...this.laneKeys(lane), ...this.dedupeKeys(lane, dedupeKey)];
    const args = [lane, jobId, dedupeKey === undefined ? 0 : 1, gappedArg(gapped)];
    return toWakes(await this.call('withdraw', keys, args));
  }

  /**
   * Cancels a job BullMQ holds in its delayed set (cancel.lua): it leaves its lane, and its claim
   * will fail it.
   * `markSeconds`: how long the job is known as cancelled (as long as it may be kept); `gapped`, as
   * for `withdraw`.
   */
  async cancel(
    lane: string,
    jobId: string,
    dedupeKey: string | undefined,
    markSeconds: number,
    gapped?: boolean,
  ): Promise<Cancellation> {
    const keys = [
      ...this.laneKeys(lane),
      this.keys.cancelled(jobId),
      this.keys.sent(jobId),
      ...this.dedupeKeys(lane, dedupeKey),
    ];
    const args = [lane, jobId, markSeconds, dedupeKey === undefined ? 0 : 1, gappedArg(gapped)];
    const [kind, ...rest] = (await this.call('cancel', keys, args)) as unknown[];
    if (kind === 'cancelled') return { kind, wakes: toWakes(rest) };
    return kind === 'already' ? { kind } : { kind: 'refused' };
  }

  /** Whether its caller cancelled the job (`cancel`). */
  async isCancelled(jobId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.cancelled(jobId))) === 1;
  }

  /** A gapped job sends another request (after a re-login): the gap counts from now. */
  async touch(lane: string): Promise<void> {
    await this.call('touch', this.laneKeys(lane), [lane]);
  }

  /** Platform calls are over: their slots are free, and waiting jobs are woken. */
  async release(requests: ReleaseRequest[]): Promise<Wake[]> {
    const keys = requests.flatMap((r) => [...this.laneKeys(r.lane), ...this.dedupeKeys(r.lane, r.dedupeKey)]);
    const args = requests.flatMap((r) => [
      r.lane,
      r.jobId,
      r.final ? 1 : 0,
      r.idle ? 2 : r.gapped ? 1 : 0,
      r.dedupeKey === undefined ? 0 : 1,
    ]);
    return toWakes(await this.call('release', keys, args));
  }

  /** Nothing of the lane starts for `forMs`; `why` is kept beside the pause (`inspect`). */
  async pause(lane: string, forMs: number, why?: string): Promise<void> {
    await this.call('pause', this.laneKeys(lane), [lane, forMs, ...(why === undefined ? [] : [why])]);
  }

  /**
   * What the lane holds now, for an account's status (one pipelined read, Redis's clock): requests
   * in flight, unfinished and waiting; when the next may start (pacing), the pause and why, and when
   * the next gapped request (media stats) may. Times are Unix ms, null where nothing holds back.
   */
  async inspect(lane: string): Promise<LaneView> {
    const keys = this.keys.lane(lane);
    const replies = await this.redis
      .pipeline()
      .time()
      .zcard(keys.run)
      .zcard(keys.jobs)
      .llen(keys.wait)
      .llen(keys.gwait)
      .hmget(keys.state, 'next', 'pause', 'pauseWhy', 'last', 'plan', 'gwake', 'gwakeAt')
      .exec();
    const values = (replies ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    });
    const [time, inFlight, backlog, waiting, gwaiting, state] = values as [
      [string, string],
      number,
      number,
      number,
      number,
      (string | null)[],
    ];
    const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
    const [next, pause, pauseWhy, last, plan, gwake, gwakeAt] = state;
    const later = (ms: number) => (ms > now ? ms : null);
    const gapFrom = Math.max(Number(last ?? 0), Number(plan ?? 0));
    const gapEnd = gapFrom === 0 ? 0 : gapFrom + this.settings.gapMs + GAP_MARGIN_MS;
    const pausedUntil = later(Number(pause ?? 0));
    return {
      now,
      inFlight,
      backlog,
      waiting: waiting + gwaiting + (gwake ? 1 : 0),
      nextStartAt: later(Number(next ?? 0)),
      pausedUntil,
      pauseWhy: pausedUntil === null ? null : pauseWhy || null,
      nextGappedAt: later(Math.max(gapEnd, gwake ? Number(gwakeAt ?? 0) : 0)),
    };
  }

  async kick(lanes: string[]): Promise<Wake[]> {
    return toWakes(
      await this.call(
        'kick',
        lanes.flatMap((lane) => this.laneKeys(lane)),
        lanes,
      ),
    );
  }

  /**
   * A service account was disconnected: its lane's empty keys go, once no job of the lane is
   * unfinished. The lane's state stays: the lane is its platform account's, which other service
   * accounts may share or connect to again. `forGood` (a webhook endpoint deleted, its jobs removed):
   * every key of the lane goes at once, its state too (forget.lua).
   */
  async forget(lane: string, { forGood = false }: { forGood?: boolean } = {}): Promise<void> {
    await this.call('forget', this.laneKeys(lane), [lane, forGood ? 1 : 0]);
  }

  /** Lanes whose leases are due for a check (crash recovery); see the worker's sweep. */
  async dueLanes(limit = 100): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.lanes, '-inf', Date.now(), 'LIMIT', 0, limit);
  }

  /** Runs a lane script: the common KEYS, then `keys`; the common ARGV, then `args` (lua/prelude.lua). */
  private call(script: ScriptName, keys: string[], args: (string | number)[]) {
    const all = [this.keys.lanes, this.keys.delayed, ...keys];
    return this.redis[`lane_${script}`](all.length, ...all, ...this.settingsArgs, ...args);
  }

  private laneKeys(lane: string): string[] {
    return laneKeyList(this.keys.lane(lane));
  }

  /** A job's sharing key as a script takes it: after its lane's keys, when it has one. */
  private dedupeKeys(lane: string, dedupeKey: string | undefined): string[] {
    return dedupeKey === undefined ? [] : [this.keys.lane(lane).dedupe(dedupeKey)];
  }
}

/** Whether a job is gapped, for a script that may not know (lua/lane.lua, `gappedArg`). */
const gappedArg = (gapped: boolean | undefined) => (gapped === undefined ? '' : gapped ? 1 : 0);

function toWakes(flat: unknown[]): Wake[] {
  const wakes: Wake[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2)
    wakes.push({ jobId: String(flat[i]), delayMs: Math.max(0, Number(flat[i + 1])) });
  return wakes;
}
