// Test helpers of @edict/leader.
export { InMemoryLease, InMemoryLeaseLock } from './in-memory-lease-lock';
export {
  spawnElectorProcess,
  type ElectorProcess,
  type ElectorProcessOptions,
  type ElectorProcessEvent,
} from './elector-process';
