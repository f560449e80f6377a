import { describe, expect, it } from 'vitest';
import { leaderGateOf } from './leader-gate';
import type { LeaderEvent, LeaderService } from './leader.service';

describe('leaderGateOf', () => {
  it('adapts the LeaderService to a gate that reports becoming leader', () => {
    let emit: ((event: LeaderEvent) => void) | undefined;
    let leading = false;
    const leader: Pick<LeaderService, 'isLeader' | 'onEvent'> = {
      isLeader: () => leading,
      onEvent: (listener) => ((emit = listener), () => (emit = undefined)),
    };
    const gate = leaderGateOf(leader);
    let called = 0;
    const stop = gate.onStartedLeading!(() => called++);
    emit!({ type: 'new-leader', identity: 'other' });
    expect(gate.isLeader()).toBe(false);
    leading = true;
    emit!({ type: 'started-leading' });
    expect(called).toBe(1);
    expect(gate.isLeader()).toBe(true);
    stop();
    expect(emit).toBeUndefined();
  });
});
