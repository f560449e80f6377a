/** A LeaderGate the test flips, plus a clock the test moves. */
import { BehaviorSubject } from 'rxjs';
import type { CertClock, LeaderGate } from '../leader-gate';

export class TestLeaderGate implements LeaderGate {
  private readonly state: BehaviorSubject<boolean>;
  readonly changes;

  constructor(leading = true) {
    this.state = new BehaviorSubject(leading);
    this.changes = this.state.asObservable();
  }

  isLeader(): boolean {
    return this.state.value;
  }

  set(leading: boolean): void {
    this.state.next(leading);
  }
}

export class ManualClock implements CertClock {
  constructor(private time = Date.now()) {}

  now(): Date {
    return new Date(this.time);
  }

  advance(ms: number): void {
    this.time += ms;
  }

  set(date: Date): void {
    this.time = date.getTime();
  }
}
