// What the apps use of the queue, and the key names and options the tests read; lanes, the write
// ledger and BullMQ stay inside.
export { jobCancelled, RetryableError } from './failure';
export type { KeyClaim } from './idempotency';
export { type QueueKeys, queueKeys } from './keys';
export type { LaneSettings } from './lanes';
export { LISTEN_QUEUE, type ListenJob, ListenJobs, listenJobId, listenPrefix } from './listen';
export type { RunObserver } from './observer';
export { type JobPayload, laneOfAccount, type StoredOutcome } from './payload';
export { jobKeyPrefix, OperationsQueue, type QueueOptions } from './queue';
export { ended, type JobState, type JobView, resultOf, type WaitResult } from './results';
export { JobStates } from './states';
export { type QueueRef, QueueStats, type QueueStatsSnapshot } from './stats';
export { type Processor, type ProcessorContext, startWorker } from './worker';
