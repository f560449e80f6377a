// @edict/work-queue: the keyed work queue every controller (the API server's and Edict's) runs on.
export { WorkQueue, type KeyHandler } from './work-queue';
