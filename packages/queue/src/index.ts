export type { JobPayload, StoredOutcome } from './payload';
export {
  type JobState,
  type JobView,
  OPERATIONS_QUEUE,
  OperationsQueue,
  type Processor,
  type ProcessorContext,
  type QueueOptions,
  queuePrefix,
  RetryableError,
  resultOf,
  startWorker,
  type WaitResult,
  type WorkerOptions,
} from './queue';
