import { createHash } from 'node:crypto';

/** The BullMQ queue every operation goes through. */
export const OPERATIONS_QUEUE = 'operations';

/**
 * Every Redis key the queue package owns or reads, for one gateway prefix `p` (`REDIS_PREFIX`). The
 * one place their names are spelled: TypeScript builds them here and hands them to the Lua scripts
 * (as KEYS, or, for jobs whose ids a script finds in Redis, as BullMQ's `jobPrefix` in ARGV).
 *
 * Every name starts with the hash tag `{p:q}`, BullMQ's included (its `prefix` option is
 * `bullmqPrefix`), so that whatever one script or MULTI touches (a lane, the jobs it reads, the
 * marks beside them) is in one Redis Cluster slot. A new key must keep that tag.
 *
 * | key                              | type   | owner                                                     |
 * | -------------------------------- | ------ | --------------------------------------------------------- |
 * | `{p:q}:operations:…`             | (many) | BullMQ (`jobPrefix`): `<id>` a job's hash, `<id>:lock`, `delayed`, `failed`, … |
 * | `{p:q}:lanes`                    | ZSET   | lanes: the sweeper's index (lane → when to look at it)     |
 * | `{p:q}:paused`                   | ZSET   | stats.ts: lanes a platform 429 paused → until when (ms)    |
 * | `{p:q}:lane:<lane>:<part>`       |        | lanes: one lane's keys, `LaneKeys`                         |
 * | `{p:q}:sent:<jobId>`             | STRING | write ledger: a write's write-ahead mark                   |
 * | `{p:q}:cancel:<jobId>`           | STRING | cancel.lua: a request its caller cancelled                 |
 * | `{p:q}:idem:<tenant>:<sha256>`   | STRING | idempotency: a caller's `Idempotency-Key`                  |
 *
 * Lanes in front of another queue (`laneSpace`) have keys of the same kinds under names of their
 * own: `{p:q}:<queue>-lanes`, `{p:q}:<queue>-lane:<lane>:<part>`.
 */
export interface QueueKeys extends LaneSpace {
  /** BullMQ's `prefix` option for the queue: `{p:q}`. */
  bullmqPrefix: string;
  /** ZSET requests answered 202 whose end is still to be told as an event, by when (ms). */
  callbacks: string;
  /** BullMQ's hash of a job: `{p:q}:operations:<jobId>`. */
  job(jobId: string): string;
  /** BullMQ's lock of a running job (its value the attempt's token): `{p:q}:operations:<jobId>:lock`. */
  lock(jobId: string): string;
  /** BullMQ's set of the jobs that failed for good. */
  failed: string;
  /** Lanes a platform 429 paused → until when (ms), for the metrics (stats.ts `PausedLanes`). */
  pausedLanes: string;
  /** What `sent(jobId)` starts with, for a script that reads the job id from a record. */
  sentPrefix: string;
  /** What `cancelled(jobId)` starts with, for a script that reads the job id from a record. */
  cancelledPrefix: string;
  /** A tenant's `Idempotency-Key`; the key is hashed (it may be long, and is anything the caller chose). */
  idempotency(tenantId: string, key: string): string;
}

/**
 * The keys of the lanes in front of one BullMQ queue, which the lane scripts take (lanes.ts): the
 * operations queue's (`queueKeys`), or another queue's under the same tag (`laneSpace`).
 */
export interface LaneSpace {
  /**
   * What BullMQ's keys of the queue start with (`queue.toKey('')`), `{p:q}:operations:` for the
   * operations queue. A job's hash is `<jobPrefix><jobId>`, its lock `<jobPrefix><jobId>:lock`
   * (lua/bullmq.lua).
   */
  jobPrefix: string;
  /** BullMQ's delayed set of the queue: job id → start time (ms) × 0x1000. */
  delayed: string;
  /** The sweeper's index: lane → when it should look at the lane (crash recovery). */
  lanes: string;
  /** One lane's keys. */
  lane(lane: string): LaneKeys;
  /** The mark of a request its caller cancelled, `{p:q}:cancel:<jobId>` (cancel.lua). */
  cancelled(jobId: string): string;
  /** A write's write-ahead mark, `{p:q}:sent:<jobId>` (ledger.ts; cancel.lua refuses a marked job). */
  sent(jobId: string): string;
}

/**
 * One lane's keys, `{p:q}:lane:<lane>:<part>` (docs/scheduling.md, lua/lane.lua). The scripts take
 * the first six, in this order, as the lane's KEYS (`laneKeyList`).
 */
export interface LaneKeys {
  /** ZSET job id → lease deadline (ms): jobs granted a slot, running or about to. */
  run: string;
  /** LIST job ids waiting for a slot, oldest first. */
  wait: string;
  /** LIST the same for the gapped operation (chat media stats). */
  gwait: string;
  /** HASH next, pause, pauseWhy, last, lastBy, lastPrev, plan, gwake, gwakeAt (lua/lane.lua). */
  state: string;
  /** ZSET job id → enqueue time: every unfinished job of the lane (the backlog bound). */
  jobs: string;
  /** SET the gapped ones of `jobs` (admitted gapped), so a script never reads a job's data to know. */
  gjobs: string;
  /** STRING the job id of a pending request that identical ones share (`payload.dedupe`). */
  dedupe(key: string): string;
}

export function queueKeys(prefix: string): QueueKeys {
  const tag = `{${prefix}:q}`;
  const jobPrefix = `${tag}:${OPERATIONS_QUEUE}:`;
  const sentPrefix = `${tag}:sent:`;
  const cancelledPrefix = `${tag}:cancel:`;
  return {
    bullmqPrefix: tag,
    callbacks: `${tag}:callbacks`,
    jobPrefix,
    job: (jobId) => `${jobPrefix}${jobId}`,
    lock: (jobId) => `${jobPrefix}${jobId}:lock`,
    delayed: `${jobPrefix}delayed`,
    failed: `${jobPrefix}failed`,
    lanes: `${tag}:lanes`,
    pausedLanes: `${tag}:paused`,
    lane: (lane) => laneKeys(`${tag}:lane:${lane}:`),
    sent: (jobId) => `${sentPrefix}${jobId}`,
    sentPrefix,
    cancelled: (jobId) => `${cancelledPrefix}${jobId}`,
    cancelledPrefix,
    idempotency: (tenantId, key) =>
      `${tag}:idem:${tenantId}:${createHash('sha256').update(key).digest('hex')}`,
  };
}

/**
 * The lanes in front of another BullMQ queue of prefix `p` than the operations queue (the webhook
 * deliveries' `webhooks`): its jobs `{p:q}:<queue>:…`, its lanes `{p:q}:<queue>-lane:<lane>:<part>`,
 * their sweeper's index `{p:q}:<queue>-lanes`, and the marks `{p:q}:<queue>-cancel:<jobId>` and
 * `{p:q}:<queue>-sent:<jobId>` that the scripts read (nothing sets them for the webhook deliveries:
 * they are never cancelled, and the write ledger is the operations').
 */
export function laneSpace(prefix: string, queue: string): LaneSpace {
  const tag = `{${prefix}:q}`;
  const jobPrefix = `${tag}:${queue}:`;
  return {
    jobPrefix,
    delayed: `${jobPrefix}delayed`,
    lanes: `${tag}:${queue}-lanes`,
    lane: (lane) => laneKeys(`${tag}:${queue}-lane:${lane}:`),
    cancelled: (jobId) => `${tag}:${queue}-cancel:${jobId}`,
    sent: (jobId) => `${tag}:${queue}-sent:${jobId}`,
  };
}

function laneKeys(base: string): LaneKeys {
  return {
    run: `${base}run`,
    wait: `${base}wait`,
    gwait: `${base}gwait`,
    state: `${base}state`,
    jobs: `${base}jobs`,
    gjobs: `${base}gjobs`,
    dedupe: (key) => `${base}dedupe:${key}`,
  };
}

/** A lane's keys as the scripts take them (lua/lane.lua, `readLane`): this order, these six. */
export function laneKeyList(lane: LaneKeys): string[] {
  return [lane.run, lane.wait, lane.gwait, lane.state, lane.jobs, lane.gjobs];
}
