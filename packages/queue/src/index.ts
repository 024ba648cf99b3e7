// What the apps use of the queue; lanes, the write ledger and BullMQ stay inside.
export type { KeyClaim } from './idempotency';
export { jobCancelled, type LaneSettings } from './lanes';
export type { JobPayload, StoredOutcome } from './payload';
export { type JobState, type JobView, OperationsQueue, resultOf, type WaitResult } from './queue';
export { type Processor, type ProcessorContext, RetryableError, startWorker } from './worker';
