import type { Observable } from 'rxjs';

/**
 * "May I write the Secrets now?" Bound by the app (usually to the leader elector). Only `isLeader`
 * is required; when `changes` is present the module reconciles as soon as it turns true.
 */
export interface LeaderGate {
  isLeader(): boolean;
  readonly changes?: Observable<boolean>;
}

/** For a single replica (local mode): always allowed to write. */
export const ALWAYS_LEADER: LeaderGate = { isLeader: () => true };
/** For read-only replicas: never writes. */
export const NEVER_LEADER: LeaderGate = { isLeader: () => false };

/** Wall clock the renewer decides with; tests pass their own. */
export interface CertClock {
  now(): Date;
}

export const SYSTEM_CLOCK: CertClock = { now: () => new Date() };
