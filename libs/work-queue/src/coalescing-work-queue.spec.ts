import { afterEach, describe, expect, it, vi } from 'vitest';
import { CoalescingWorkQueue, type CoalescingWorkQueueOptions } from './coalescing-work-queue';

interface Item {
  key: string;
  values: string[];
}

const item = (key: string, value: string): Item => ({ key, values: [value] });

/** A queue of items merged by key (values appended), whose handler calls wait until released. */
function queueOf(options: Partial<CoalescingWorkQueueOptions<Item>> = {}) {
  const handled: string[] = [];
  const releases: Array<() => void> = [];
  const drops: string[] = [];
  const queue = new CoalescingWorkQueue<Item>({
    capacity: 10,
    workers: 1,
    windowMs: 100,
    keyOf: (entry) => entry.key,
    merge: (earlier, later) => ({ key: earlier.key, values: [...earlier.values, ...later.values] }),
    handler: (entry) =>
      new Promise<void>((resolve) => {
        handled.push(`${entry.key}=${entry.values.join('+')}`);
        releases.push(resolve);
      }),
    onDrop: (entry, reason) => drops.push(`${entry.key}:${reason}`),
    ...options,
  });
  const releaseAll = async () => {
    releases.splice(0).forEach((release) => release());
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue, handled, drops, releaseAll };
}

describe('CoalescingWorkQueue', () => {
  afterEach(() => vi.useRealTimers());

  it('holds new keys for the window, merging later items of the same key into them', async () => {
    vi.useFakeTimers();
    const { queue, handled } = queueOf();
    expect([queue.offer(item('a', '1')), queue.offer(item('b', '1')), queue.offer(item('a', '2'))]).toEqual([
      true,
      true,
      true,
    ]);
    expect(handled).toEqual([]);
    expect(queue.stats()).toMatchObject({ depth: 2, coalesced: 1 });
    await vi.advanceTimersByTimeAsync(100);
    expect(handled).toEqual(['a=1+2']);
  });

  it('merges into an item still waiting in the queue, never into one being worked on', async () => {
    const { queue, handled, releaseAll } = queueOf({ windowMs: 0 });
    queue.offer(item('a', '1')); // picked at once
    queue.offer(item('a', '2')); // waits behind it
    queue.offer(item('a', '3')); // merged into 2
    expect(handled).toEqual(['a=1']);
    await releaseAll();
    expect(handled).toEqual(['a=1', 'a=2+3']);
    queue.offer(item('a', '4')); // 2+3 is being worked on: a new entry
    await releaseAll();
    await releaseAll();
    expect(handled).toEqual(['a=1', 'a=2+3', 'a=4']);
    expect(queue.stats()).toMatchObject({ coalesced: 1, done: 3 });
  });

  it('counts the window against the capacity and drops what does not fit', () => {
    vi.useFakeTimers();
    const { queue, drops } = queueOf({ capacity: 2 });
    expect(['a', 'b', 'c'].map((key) => queue.offer(item(key, '1')))).toEqual([true, true, false]);
    expect(queue.offer(item('a', '2'))).toBe(true); // merging takes no room
    expect(drops).toEqual(['c:full']);
    expect(queue.stats()).toMatchObject({ depth: 2, dropped: 1, coalesced: 1 });
  });

  it('drain ends the window at once, works everything off and refuses what comes later', async () => {
    vi.useFakeTimers();
    const { queue, handled, drops, releaseAll } = queueOf({ windowMs: 60_000, workers: 4 });
    queue.offer(item('a', '1'));
    queue.offer(item('b', '1'));
    const drained = queue.drain(1_000);
    expect(handled).toEqual(['a=1', 'b=1']);
    expect(queue.offer(item('a', '2'))).toBe(false);
    expect(drops).toEqual(['a:stopped']);
    vi.useRealTimers();
    await releaseAll();
    expect(await drained).toBe(true);
  });

  it('whenIdle flushes the window and resolves once everything is done', async () => {
    const { queue, handled, releaseAll } = queueOf({ windowMs: 60_000 });
    queue.offer(item('a', '1'));
    const idle = queue.whenIdle();
    expect(handled).toEqual(['a=1']);
    await releaseAll();
    await idle;
    expect(queue.stats()).toMatchObject({ depth: 0, active: 0, done: 1 });
  });

  it('refuses a negative window', () => {
    expect(() => queueOf({ windowMs: -1 })).toThrow(/windowMs/);
  });
});
