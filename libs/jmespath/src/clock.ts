import { systemClock, type Clock } from '@edict/foundation';

let current: Clock = systemClock;

/** Time source for time_now, time_now_utc and time_since (tests pin it). */
export function setJmesPathClock(clock: Clock): void {
  current = clock;
}

export function jmesPathNow(): Date {
  return current.now();
}
