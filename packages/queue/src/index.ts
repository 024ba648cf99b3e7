// What the apps use of the queue, and the key names and options the tests read; the write ledger
// and BullMQ's keys stay inside. The lanes are also what the webhook deliveries schedule with
// (packages/events): their scripts, the worker's side of them and the worker that parks through them.
export { jobCancelled, RetryableError } from './failure';
export type { KeyClaim } from './idempotency';
export { laneSpace, type QueueKeys, queueKeys } from './keys';
export { type Claim, type LaneSettings, Lanes, type LaneView, type Wake } from './lanes';
export { LISTEN_QUEUE, type ListenJob, ListenJobs, listenHeld, listenJobId, listenPrefix } from './listen';
export type { RunObserver } from './observer';
export { type JobPayload, laneOfAccount, type StoredOutcome } from './payload';
export { jobKeyPrefix, OperationsQueue, type QueueOptions } from './queue';
export { ended, type JobState, type JobView, resultOf, type WaitResult } from './results';
export { SettlingWorker } from './settling-worker';
export { JobStates } from './states';
export { type QueueRef, QueueStats, type QueueStatsSnapshot } from './stats';
export type { TenantJob, TenantJobs, TenantJobsCursor } from './tenant-jobs';
export { PARK_MS, wakeJobs } from './wake';
export { type Processor, type ProcessorContext, stalledOut, startWorker } from './worker';
export { WorkerLanes } from './worker-lanes';
