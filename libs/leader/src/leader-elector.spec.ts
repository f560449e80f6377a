import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InMemoryLease } from './testing/in-memory-lease-lock';
import { LeaderElector, timingProblems, type StopReason } from './leader-elector';

const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

interface Replica {
  readonly elector: LeaderElector;
  readonly events: string[];
  readonly stops: StopReason[];
}

function replica(lease: InMemoryLease, identity: string, options: { watch?: boolean } = {}): Replica {
  const events: string[] = [];
  const stops: StopReason[] = [];
  const lock = lease.lockFor();
  lock.watchEnabled = options.watch ?? true;
  const elector = new LeaderElector({
    ...timings,
    lock,
    identity,
    callbacks: {
      onStartedLeading: () => events.push('started'),
      onStoppedLeading: (reason) => {
        events.push(`stopped:${reason}`);
        stops.push(reason);
      },
      onNewLeader: (leader) => events.push(`leader:${leader}`),
    },
  });
  return { elector, events, stops };
}

const leaders = (replicas: Replica[]) => replicas.filter((r) => r.elector.isLeader()).map((r) => r.elector.identity);

describe('LeaderElector', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2025-01-01T00:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('creates the lease, leads, and renews every retry period keeping acquireTime', async () => {
    const lease = new InMemoryLease();
    const a = replica(lease, 'a');
    a.elector.start();
    await vi.advanceTimersByTimeAsync(1);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.events).toEqual(['leader:a', 'started']);
    const first = lease.current!.record;
    expect(first).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(first.acquireTime).toBe(first.renewTime);

    await vi.advanceTimersByTimeAsync(2_000);
    const renewed = lease.current!.record;
    expect(renewed.renewTime).toBe(first.renewTime! + 2_000);
    expect(renewed.acquireTime).toBe(first.acquireTime);
    expect(a.elector.state()).toMatchObject({
      identity: 'a',
      isLeader: true,
      leader: 'a',
      leaseTransitions: 0,
      leaseValid: true,
    });
    await a.elector.stop();
  });

  it('elects exactly one of three replicas and keeps it', async () => {
    const lease = new InMemoryLease();
    const replicas = ['a', 'b', 'c'].map((id) => replica(lease, id));
    for (const r of replicas) r.elector.start();
    for (let t = 0; t < 60_000; t += 250) {
      await vi.advanceTimersByTimeAsync(250);
      expect(leaders(replicas).length).toBeLessThanOrEqual(1);
    }
    expect(leaders(replicas)).toEqual(['a']);
    expect(replicas[1].elector.state().leader).toBe('a');
    expect(lease.current!.record.leaseTransitions).toBe(0);
    for (const r of replicas) await r.elector.stop();
  });

  it('takes over an abandoned lease only after the lease duration from when it was observed', async () => {
    const lease = new InMemoryLease();
    const a = replica(lease, 'a');
    const b = replica(lease, 'b');
    a.elector.start();
    await vi.advanceTimersByTimeAsync(1);
    b.elector.start();
    await vi.advanceTimersByTimeAsync(5_000);
    await a.elector.stop(); // no release: as if the process died
    const lastRenew = lease.current!.record.renewTime!;
    const stoppedAt = Date.now();
    while (!b.elector.isLeader()) await vi.advanceTimersByTimeAsync(50);
    const takeover = Date.now() - stoppedAt;
    // b observed a's last renew at most a jittered retry after it was written (2.2 x 2 s).
    expect(Date.now() - lastRenew).toBeGreaterThanOrEqual(15_000);
    expect(takeover).toBeLessThanOrEqual(15_000 + 4_400 + 100);
    expect(lease.current!.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(lease.current!.record.acquireTime).toBeGreaterThan(lastRenew);
    expect(b.events).toContain('leader:a');
    expect(b.events.slice(-2)).toEqual(['leader:b', 'started']);
    await b.elector.stop();
  });

  it('releases the lease on stop and a watching candidate takes it at once', async () => {
    const lease = new InMemoryLease();
    const a = replica(lease, 'a');
    const b = replica(lease, 'b');
    a.elector.start();
    await vi.advanceTimersByTimeAsync(1);
    b.elector.start();
    await vi.advanceTimersByTimeAsync(3_000);
    await a.elector.stop({ release: true });
    expect(a.stops).toEqual(['shutdown']);
    const released = lease.writes.find((w) => w.holderIdentity === '');
    expect(released).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
    await vi.advanceTimersByTimeAsync(10);
    expect(b.elector.isLeader()).toBe(true);
    expect(lease.current!.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1, leaseDurationSeconds: 15 });
    await b.elector.stop();
  });

  it('without a watch, a candidate takes a released lease within one jittered retry period', async () => {
    const lease = new InMemoryLease();
    const a = replica(lease, 'a', { watch: false });
    const b = replica(lease, 'b', { watch: false });
    a.elector.start();
    await vi.advanceTimersByTimeAsync(1);
    b.elector.start();
    await vi.advanceTimersByTimeAsync(3_000);
    await a.elector.stop({ release: true });
    const releasedAt = Date.now();
    while (!b.elector.isLeader()) await vi.advanceTimersByTimeAsync(10);
    expect(Date.now() - releasedAt).toBeLessThanOrEqual(4_400 + 10);
    await b.elector.stop();
  });

  it('stops leading when renews fail for the renew deadline, before the lease could expire elsewhere', async () => {
    const lease = new InMemoryLease();
    const a = replica(lease, 'a');
    a.elector.start();
    await vi.advanceTimersByTimeAsync(1);
    const lastGood = Date.now();
    lease.failWith = 500;
    while (a.elector.isLeader()) await vi.advanceTimersByTimeAsync(10);
    const led = Date.now() - lastGood;
    expect(a.stops).toEqual(['renew-deadline']);
    expect(led).toBeGreaterThan(9_000);
    expect(led).toBeLessThanOrEqual(10_010);
    // It contends again once the server answers, and wins back its own unexpired lease.
    lease.failWith = undefined;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(a.elector.isLeader()).toBe(true);
    await a.elector.stop();
  });

  it('a hung request cannot keep a leader past the renew deadline', async () => {
    const lease = new InMemoryLease();
    const a = replica(lease, 'a');
    a.elector.start();
    await vi.advanceTimersByTimeAsync(1);
    const lastGood = Date.now();
    lease.hang = true;
    while (a.elector.isLeader()) await vi.advanceTimersByTimeAsync(10);
    expect(Date.now() - lastGood).toBeLessThanOrEqual(10_010);
    expect(a.stops).toEqual(['renew-deadline']);
    lease.hang = false;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(a.elector.isLeader()).toBe(true);
    await a.elector.stop();
  });

  it('stops at once when the watch shows another holder', async () => {
    const lease = new InMemoryLease();
    const a = replica(lease, 'a');
    a.elector.start();
    await vi.advanceTimersByTimeAsync(1);
    lease.put({ holderIdentity: 'intruder', leaseDurationSeconds: 15, leaseTransitions: 1, renewTime: Date.now() });
    await vi.advanceTimersByTimeAsync(1);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.stops).toEqual(['lost-lease']);
    expect(a.elector.state().leader).toBe('intruder');
    await a.elector.stop({ release: true });
    expect(lease.current!.record.holderIdentity).toBe('intruder'); // never releases someone else's lease
  });

  it('without a watch, notices another holder at its next renew', async () => {
    const lease = new InMemoryLease();
    const a = replica(lease, 'a', { watch: false });
    a.elector.start();
    await vi.advanceTimersByTimeAsync(1);
    lease.put({ holderIdentity: 'intruder', leaseDurationSeconds: 15, leaseTransitions: 1, renewTime: Date.now() });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.stops).toEqual(['lost-lease']);
    await a.elector.stop();
  });

  it('recreates a deleted lease while leading', async () => {
    const lease = new InMemoryLease();
    const a = replica(lease, 'a');
    a.elector.start();
    await vi.advanceTimersByTimeAsync(1);
    lease.delete();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(lease.current!.record.holderIdentity).toBe('a');
    expect(a.elector.isLeader()).toBe(true);
    await a.elector.stop();
  });

  it('stop without release keeps the lease and reports shutdown once', async () => {
    const lease = new InMemoryLease();
    const a = replica(lease, 'a');
    a.elector.start();
    await vi.advanceTimersByTimeAsync(1);
    await a.elector.stop();
    await a.elector.stop();
    expect(a.stops).toEqual(['shutdown']);
    expect(lease.current!.record.holderIdentity).toBe('a');
  });

  it('rejects timings client-go rejects', () => {
    expect(timingProblems(timings)).toEqual([]);
    expect(timingProblems({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 })).toEqual([
      'leaseDurationMs must be greater than renewDeadlineMs',
    ]);
    expect(timingProblems({ leaseDurationMs: 15_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).toEqual([
      'renewDeadlineMs must be greater than retryPeriodMs * 1.2',
    ]);
    expect(timingProblems({ leaseDurationMs: 2_500, renewDeadlineMs: 2_000, retryPeriodMs: 250 })).toEqual([
      'leaseDurationMs must be a whole number of seconds (the Lease stores seconds)',
    ]);
    const lock = new InMemoryLease().lockFor();
    const callbacks = { onStartedLeading: () => undefined, onStoppedLeading: () => undefined };
    expect(() => new LeaderElector({ ...timings, renewDeadlineMs: 20_000, lock, identity: 'a', callbacks })).toThrow(
      'leader election: leaseDurationMs must be greater than renewDeadlineMs',
    );
    expect(() => new LeaderElector({ ...timings, lock, identity: '', callbacks })).toThrow(
      'identity must not be empty',
    );
  });
});
