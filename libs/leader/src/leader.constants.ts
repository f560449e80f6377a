/** Injection tokens of the leader module. */
/** The validated `ResolvedLeaderOptions`. */
export const LEADER_OPTIONS = Symbol('LEADER_OPTIONS');
/** The `LeaseLock` the elector contends for (override it in tests with a fake). */
export const LEADER_LEASE_LOCK = Symbol('LEADER_LEASE_LOCK');
