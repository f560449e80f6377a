// The controllers' work queue: one handler per key at a time, dedup, re-runs, bounded workers, delays, backoff.
import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('WorkQueue', () => {
  it('handles a key added several times while it waits once', async () => {
    const seen: string[] = [];
    const gate = deferred();
    const queue = new WorkQueue(async (key) => {
      seen.push(key);
      if (key === 'a') await gate.promise;
    }, 1);
    queue.add('a');
    queue.add('b');
    queue.add('b');
    queue.add('b');
    gate.resolve();
    await queue.drained();
    expect(seen).toEqual(['a', 'b']);
  });

  it('runs a key once more when it is added while being handled, never twice at once', async () => {
    let running = 0;
    let most = 0;
    let calls = 0;
    const gate = deferred();
    const queue = new WorkQueue(async () => {
      calls++;
      running++;
      most = Math.max(most, running);
      if (calls === 1) await gate.promise;
      running--;
    }, 4);
    queue.add('a');
    queue.add('a');
    queue.add('a');
    gate.resolve();
    await queue.drained();
    expect(calls).toBe(2);
    expect(most).toBe(1);
  });

  it('keeps at most `workers` handlers running', async () => {
    let running = 0;
    let most = 0;
    const queue = new WorkQueue(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    }, 2);
    for (const key of ['a', 'b', 'c', 'd', 'e']) queue.add(key);
    await queue.drained();
    expect(most).toBe(2);
  });

  it('retries a failing key after a growing delay until it succeeds', async () => {
    const times: number[] = [];
    const done = deferred();
    const queue = new WorkQueue(async () => {
      times.push(Date.now());
      if (times.length < 4) throw new Error('not yet');
      done.resolve();
    }, 1);
    queue.add('a');
    await done.promise;
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    // 5, 10 and 20 ms (timers may fire late, never early).
    expect(gaps[0]).toBeGreaterThanOrEqual(4);
    expect(gaps[1]).toBeGreaterThanOrEqual(9);
    expect(gaps[2]).toBeGreaterThanOrEqual(19);
  });

  it('delays a key, the earlier due time winning', async () => {
    const seen: string[] = [];
    const queue = new WorkQueue(async (key) => void seen.push(key), 1);
    queue.addAfter('a', 1_000);
    queue.addAfter('a', 10);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(seen).toEqual(['a']);
    await queue.stop();
  });

  it('holds a key delayed past the longest timer instead of running it at once', async () => {
    const seen: string[] = [];
    const queue = new WorkQueue(async (key) => void seen.push(key), 1);
    queue.addAfter('next-year', 365 * 24 * 3600 * 1000);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(seen).toEqual([]);
    await queue.stop();
  });

  it('drops waiting and delayed keys when stopped', async () => {
    const seen: string[] = [];
    const queue = new WorkQueue(async (key) => void seen.push(key), 1);
    queue.addAfter('later', 20);
    await queue.stop();
    queue.add('refused');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(seen).toEqual([]);
  });
});
