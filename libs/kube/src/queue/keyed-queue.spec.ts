import { describe, expect, it } from 'vitest';
import { KeyedQueue } from './keyed-queue';

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedQueue', () => {
  it('runs a key once however often it waits, and once more when added while running', async () => {
    const runs: string[] = [];
    let release!: () => void;
    const queue = new KeyedQueue(async (key) => {
      runs.push(key);
      if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
    }, 4);
    queue.add('a');
    queue.add('a');
    await tick();
    queue.add('a');
    queue.add('a');
    expect(runs).toEqual(['a']);
    release();
    await queue.idle();
    expect(runs).toEqual(['a', 'a']);
  });

  it('runs at most `workers` handlers at once', async () => {
    let running = 0;
    let most = 0;
    const queue = new KeyedQueue(async () => {
      running++;
      most = Math.max(most, running);
      await tick(5);
      running--;
    }, 2);
    for (const key of ['a', 'b', 'c', 'd', 'e']) queue.add(key);
    await queue.idle();
    expect(most).toBe(2);
  });

  it('delays a key, an earlier due time winning, and drops delayed keys on stop', async () => {
    const runs: string[] = [];
    const queue = new KeyedQueue(async (key) => void runs.push(key), 1);
    queue.addAfter('late', 1_000);
    queue.addAfter('late', 10);
    queue.addAfter('never', 50);
    await tick(30);
    expect(runs).toEqual(['late']);
    await queue.stop();
    await tick(40);
    queue.add('after-stop');
    expect(runs).toEqual(['late']);
  });
});
