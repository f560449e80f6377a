import { describe, expect, it } from 'vitest';
import { FairLimiter } from './fair-limiter';

/** One tenant's limits: the per-tenant caps as high as the whole. */
const limiter_ = (maxInFlight: number, maxQueued: number) =>
  new FairLimiter({ maxInFlight, maxInFlightPerTenant: maxInFlight, maxQueued, maxQueuedPerTenant: maxQueued });

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('FairLimiter', () => {
  it('runs up to maxInFlight at once and queues the rest in order', async () => {
    const limiter = limiter_(2, 10);
    const gates = [deferred(), deferred(), deferred()];
    const order: number[] = [];
    const runs = gates.map((gate, i) =>
      limiter.run(
        'a',
        async () => {
          order.push(i);
          await gate.promise;
          return i;
        },
        1_000,
      ),
    );
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([0, 1]);
    expect(limiter.inFlight()).toBe(2);
    expect(limiter.queued()).toBe(1);
    gates[0]!.resolve();
    await runs[0];
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([0, 1, 2]);
    gates[1]!.resolve();
    gates[2]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2].map((value) => ({ admitted: true, value })));
    expect(limiter.inFlight()).toBe(0);
  });

  it('refuses at once when the queue is full', async () => {
    const limiter = limiter_(1, 0);
    const gate = deferred();
    const first = limiter.run('a', () => gate.promise, 1_000);
    expect(await limiter.run('a', async () => 1, 1_000)).toEqual({ admitted: false, reason: 'queue-full' });
    gate.resolve();
    expect((await first).admitted).toBe(true);
  });

  it('gives up waiting after the wait time and frees the queue place', async () => {
    const limiter = limiter_(1, 1);
    const gate = deferred();
    const first = limiter.run('a', () => gate.promise, 1_000);
    expect(await limiter.run('a', async () => 1, 20)).toEqual({ admitted: false, reason: 'queue-timeout' });
    expect(limiter.queued()).toBe(0);
    gate.resolve();
    await first;
  });

  it('releases the slot when the work throws', async () => {
    const limiter = limiter_(1, 0);
    await expect(limiter.run('a', () => Promise.reject(new Error('boom')), 100)).rejects.toThrow('boom');
    expect((await limiter.run('a', async () => 2, 100)).admitted).toBe(true);
  });

  it('drain resolves when in-flight work is done, or false on timeout', async () => {
    const limiter = limiter_(1, 1);
    expect(await limiter.drain(10)).toBe(true);
    const gate = deferred();
    const run = limiter.run('a', () => gate.promise, 1_000);
    expect(await limiter.drain(10)).toBe(false);
    const drained = limiter.drain(1_000);
    gate.resolve();
    await run;
    expect(await drained).toBe(true);
  });

  it("keeps one tenant to its share of the slots, so another tenant's work starts at once", async () => {
    const limiter = new FairLimiter({ maxInFlight: 4, maxInFlightPerTenant: 2, maxQueued: 10, maxQueuedPerTenant: 10 });
    const slow = deferred();
    const tenantA = Array.from({ length: 5 }, () => limiter.run('team-a', () => slow.promise, 1_000));
    expect(limiter.tenant('team-a')).toEqual({ inFlight: 2, queued: 3 });
    // Two slots are free: team-b takes one at once although team-a queued first.
    expect(await limiter.run('team-b', async () => 'b', 1_000)).toEqual({ admitted: true, value: 'b' });
    slow.resolve();
    expect((await Promise.all(tenantA)).every((run) => run.admitted)).toBe(true);
  });

  it('serves waiting tenants in turn, not in arrival order', async () => {
    const limiter = new FairLimiter({ maxInFlight: 1, maxInFlightPerTenant: 1, maxQueued: 10, maxQueuedPerTenant: 10 });
    const gate = deferred();
    const order: string[] = [];
    const first = limiter.run('a', () => gate.promise, 1_000);
    const runs = ['a', 'a', 'a', 'b', 'c'].map((tenant, i) =>
      limiter.run(tenant, async () => void order.push(`${tenant}${i}`), 1_000),
    );
    gate.resolve();
    await Promise.all([first, ...runs]);
    expect(order).toEqual(['a0', 'b3', 'c4', 'a1', 'a2']);
  });

  it("bounds one tenant's queue, so it cannot fill the queue the others wait in", async () => {
    const limiter = new FairLimiter({ maxInFlight: 1, maxInFlightPerTenant: 1, maxQueued: 10, maxQueuedPerTenant: 2 });
    const gate = deferred();
    const runs = [0, 1, 2].map(() => limiter.run('a', () => gate.promise, 1_000));
    expect(await limiter.run('a', async () => 1, 1_000)).toEqual({ admitted: false, reason: 'queue-full' });
    const other = limiter.run('b', async () => 'b', 1_000);
    expect(limiter.tenant('b')).toEqual({ inFlight: 0, queued: 1 });
    gate.resolve();
    await Promise.all(runs);
    expect(await other).toEqual({ admitted: true, value: 'b' });
    expect(limiter.inFlight()).toBe(0);
    expect(limiter.queued()).toBe(0);
  });

  it('refuses limits that are not whole numbers, naming them', () => {
    expect(
      () => new FairLimiter({ maxInFlight: 0, maxInFlightPerTenant: 1, maxQueued: 0, maxQueuedPerTenant: 0 }),
    ).toThrow('maxInFlight and maxInFlightPerTenant must be at least 1');
    expect(
      () => new FairLimiter({ maxInFlight: 2, maxInFlightPerTenant: 1.5, maxQueued: 0, maxQueuedPerTenant: 0 }),
    ).toThrow('maxInFlightPerTenant must be a whole number, got 1.5');
  });
});
