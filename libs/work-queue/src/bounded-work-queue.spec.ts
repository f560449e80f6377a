import { describe, expect, it } from 'vitest';
import { BoundedWorkQueue } from './bounded-work-queue';

/** A handler whose calls wait until the test releases them. */
function gated() {
  const started: number[] = [];
  const releases: Array<() => void> = [];
  const handler = (item: number) =>
    new Promise<void>((resolve) => {
      started.push(item);
      releases.push(resolve);
    });
  const releaseAll = () => releases.splice(0).forEach((release) => release());
  return { started, handler, releaseAll };
}

describe('BoundedWorkQueue', () => {
  it('drops and counts when full, without waiting, and works through the rest', async () => {
    const gate = gated();
    const drops: string[] = [];
    const queue = new BoundedWorkQueue<number>({
      capacity: 2,
      workers: 1,
      handler: gate.handler,
      onDrop: (item, reason) => drops.push(`${item}:${reason}`),
    });
    const accepted = [1, 2, 3, 4, 5].map((item) => queue.offer(item));
    // 1 is running, 2 and 3 wait, 4 and 5 are dropped at once.
    expect(accepted).toEqual([true, true, true, false, false]);
    expect(drops).toEqual(['4:full', '5:full']);
    expect(queue.stats()).toMatchObject({ depth: 2, active: 1, accepted: 3, dropped: 2 });
    for (let i = 0; i < 3; i += 1) {
      gate.releaseAll();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await queue.whenIdle();
    expect(gate.started).toEqual([1, 2, 3]);
    expect(queue.stats()).toMatchObject({ depth: 0, active: 0, done: 3 });
  });

  it('runs up to `workers` items at once', () => {
    const gate = gated();
    const queue = new BoundedWorkQueue<number>({ capacity: 10, workers: 3, handler: gate.handler });
    for (let i = 1; i <= 5; i += 1) queue.offer(i);
    expect(gate.started).toEqual([1, 2, 3]);
    expect(queue.depth).toBe(2);
  });

  it('counts handler failures and carries on', async () => {
    const errors: unknown[] = [];
    const queue = new BoundedWorkQueue<number>({
      capacity: 5,
      workers: 1,
      handler: async (item) => {
        if (item === 1) throw new Error('boom');
      },
      onError: (error) => errors.push(error),
    });
    queue.offer(1);
    queue.offer(2);
    await queue.whenIdle();
    expect(errors).toHaveLength(1);
    expect(queue.stats()).toMatchObject({ failed: 1, done: 1 });
  });

  it('drain stops accepting and resolves true when the work finished', async () => {
    const done: number[] = [];
    const queue = new BoundedWorkQueue<number>({
      capacity: 5,
      workers: 1,
      handler: async (item) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        done.push(item);
      },
    });
    queue.offer(1);
    queue.offer(2);
    const drained = queue.drain(1_000);
    expect(queue.offer(3)).toBe(false);
    expect(await drained).toBe(true);
    expect(done).toEqual([1, 2]);
    expect(queue.stats().dropped).toBe(1);
  });

  it('drain gives up at its deadline', async () => {
    const gate = gated();
    const queue = new BoundedWorkQueue<number>({ capacity: 5, workers: 1, handler: gate.handler });
    queue.offer(1);
    expect(await queue.drain(20)).toBe(false);
    gate.releaseAll();
  });

  it('capacity 0 drops everything; bad sizes are refused', () => {
    const queue = new BoundedWorkQueue<number>({ capacity: 0, workers: 1, handler: async () => undefined });
    expect(queue.offer(1)).toBe(false);
    expect(() => new BoundedWorkQueue({ capacity: -1, workers: 1, handler: async () => undefined })).toThrow(
      /capacity/,
    );
    expect(() => new BoundedWorkQueue({ capacity: 1, workers: 0, handler: async () => undefined })).toThrow(/workers/);
  });
});
