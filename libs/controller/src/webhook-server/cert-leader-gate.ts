/** The CertModule's "may I write the Secrets?" answered by this replica's leader election. */
import { Observable } from 'rxjs';
import type { LeaderGate } from '@edict/cert';
import type { LeaderService } from '@edict/leader';

export function leaderGateFor(leader: LeaderService): LeaderGate {
  return {
    isLeader: () => leader.isLeader(),
    changes: new Observable<boolean>((subscriber) =>
      leader.onEvent((event) => {
        if (event.type === 'started-leading') subscriber.next(true);
        else if (event.type === 'stopped-leading') subscriber.next(false);
      }),
    ),
  };
}
