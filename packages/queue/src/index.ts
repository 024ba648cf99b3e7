export {
  AccountLanes,
  type Admission,
  type Claim,
  LANE_LEASE_MS,
  type LaneSettings,
  type Wake,
} from './lanes';
export { WriteLedger } from './ledger';
export type { JobPayload, StoredOutcome } from './payload';
export {
  type JobState,
  type JobView,
  jobKeyPrefix,
  OPERATIONS_QUEUE,
  OperationsQueue,
  PARK_MS,
  type QueueOptions,
  queuePrefix,
  resultOf,
  type WaitResult,
  wakeJobs,
} from './queue';
export {
  type OperationsWorker,
  type Processor,
  type ProcessorContext,
  RetryableError,
  startWorker,
  type WorkerOptions,
} from './worker';
