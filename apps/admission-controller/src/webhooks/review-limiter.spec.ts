import { describe, expect, it } from 'vitest';
import { ReviewLimiter } from './review-limiter';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('ReviewLimiter', () => {
  it('runs up to maxInFlight at once and queues the rest in order', async () => {
    const limiter = new ReviewLimiter(2, 10);
    const gates = [deferred(), deferred(), deferred()];
    const order: number[] = [];
    const runs = gates.map((gate, i) =>
      limiter.run(async () => {
        order.push(i);
        await gate.promise;
        return i;
      }, 1_000),
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
    const limiter = new ReviewLimiter(1, 0);
    const gate = deferred();
    const first = limiter.run(() => gate.promise, 1_000);
    expect(await limiter.run(async () => 1, 1_000)).toEqual({ admitted: false, reason: 'queue-full' });
    gate.resolve();
    expect((await first).admitted).toBe(true);
  });

  it('gives up waiting after the wait time and frees the queue place', async () => {
    const limiter = new ReviewLimiter(1, 1);
    const gate = deferred();
    const first = limiter.run(() => gate.promise, 1_000);
    expect(await limiter.run(async () => 1, 20)).toEqual({ admitted: false, reason: 'queue-timeout' });
    expect(limiter.queued()).toBe(0);
    gate.resolve();
    await first;
  });

  it('releases the slot when the work throws', async () => {
    const limiter = new ReviewLimiter(1, 0);
    await expect(limiter.run(() => Promise.reject(new Error('boom')), 100)).rejects.toThrow('boom');
    expect((await limiter.run(async () => 2, 100)).admitted).toBe(true);
  });

  it('drain resolves when in-flight work is done, or false on timeout', async () => {
    const limiter = new ReviewLimiter(1, 1);
    expect(await limiter.drain(10)).toBe(true);
    const gate = deferred();
    const run = limiter.run(() => gate.promise, 1_000);
    expect(await limiter.drain(10)).toBe(false);
    const drained = limiter.drain(1_000);
    gate.resolve();
    await run;
    expect(await drained).toBe(true);
  });
});
