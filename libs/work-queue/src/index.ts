// @edict/work-queue: the keyed work queue every controller (the API server's and Edict's) runs on,
// the bounded (and key-coalescing) queues that hand work from a request to background workers,
// retries with backoff, passes that never overlap (SerialPass), and the per-tenant fair limiter of
// admission reviews and context loads.
export { WorkQueue, type KeyHandler } from './work-queue';
export { FairLimiter, type Admission, type FairLimits } from './fair-limiter';
export { BoundedWorkQueue, type WorkQueueOptions, type WorkQueueStats } from './bounded-work-queue';
export {
  CoalescingWorkQueue,
  type CoalescingWorkQueueOptions,
  type CoalescingWorkQueueStats,
} from './coalescing-work-queue';
export { retryWithBackoff, type RetryOptions } from './retry';
export { SerialPass } from './serial-pass';
