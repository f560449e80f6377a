/** A LeaderGate the test flips, plus a clock the test moves. */
import type { LeaderGate } from '@edict/leader';
import type { CertClock } from '../cert-clock';

export class TestLeaderGate implements LeaderGate {
  private readonly listeners = new Set<() => void>();

  constructor(private leading = true) {}

  isLeader(): boolean {
    return this.leading;
  }

  onStartedLeading(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  set(leading: boolean): void {
    this.leading = leading;
    if (leading) for (const listener of this.listeners) listener();
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
