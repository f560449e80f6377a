// @edict/work-queue: the keyed work queue every controller (the API server's and Edict's) runs on,
// and the per-tenant fair limiter of admission reviews and context loads.
export { WorkQueue, type KeyHandler } from './work-queue';
export { FairLimiter, type Admission, type FairLimits } from './fair-limiter';
