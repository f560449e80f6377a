import type { LeaderService } from './leader.service';

/**
 * "May I write now?", asked by whatever writes shared state (certificate Secrets, webhook
 * configurations, policy status) before writing. Bound to this replica's election by `leaderGateOf`.
 */
export interface LeaderGate {
  isLeader(): boolean;
  /** Calls `listener` each time this replica becomes leader, so a writer catches up at once; returns a stop function. */
  onStartedLeading?(listener: () => void): () => void;
}

/** For a single replica (local mode): always allowed to write. */
export const ALWAYS_LEADER: LeaderGate = { isLeader: () => true };
/** For read-only replicas: never writes. */
export const NEVER_LEADER: LeaderGate = { isLeader: () => false };

/** The gate answered by this replica's LeaderService. */
export function leaderGateOf(leader: Pick<LeaderService, 'isLeader' | 'onEvent'>): LeaderGate {
  return {
    isLeader: () => leader.isLeader(),
    onStartedLeading: (listener) => leader.onEvent((event) => event.type === 'started-leading' && listener()),
  };
}
