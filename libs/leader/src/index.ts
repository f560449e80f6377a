// @edict/leader: Lease-based leader election (client-go semantics) as a Nest module.
export { LeaderModule, type LeaderModuleAsyncOptions } from './leader.module';
export { LeaderService, type LeaderEvent } from './leader.service';
export { ALWAYS_LEADER, NEVER_LEADER, leaderGateOf, type LeaderGate } from './leader-gate';
export { LEADER_LEASE_LOCK, LEADER_OPTIONS } from './leader.constants';
export {
  LeaderOptions,
  resolveLeaderOptions,
  type LeaderModuleOptions,
  type ResolvedLeaderOptions,
} from './leader.options';
export { LeaderProvider, LeadershipEndedError, isLeaderAware, type LeaderAware } from './leader-aware';
export {
  LeaderElector,
  JITTER_FACTOR,
  timingProblems,
  type LeaderCallbacks,
  type LeaderElectorConfig,
  type LeaderState,
  type ElectionTimings,
  type StopReason,
  type LogLevel,
} from './leader-elector';
export { KubeLeaseLock, type KubeLeaseLockOptions } from './kube-lease-lock';
export { type LeaseLock, type ObservedLease, type LeaseChangeListener } from './lease-lock';
export { leaseSpecToRecord, recordToLeaseSpec, type LeaderElectionRecord } from './lease-record';
export { defaultIdentity } from './identity';
