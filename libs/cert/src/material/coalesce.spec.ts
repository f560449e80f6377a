import { describe, expect, it } from 'vitest';
import { coalesce } from './coalesce';

describe('coalesce', () => {
  it('runs once at a time and queues exactly one more run for a burst of calls', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const task = coalesce(async () => {
      runs++;
      await new Promise<void>((resolve) => (release = resolve));
      return runs;
    });
    const first = task();
    const burst = [task(), task(), task()];
    expect(runs).toBe(1);
    release();
    expect(await first).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toBe(2);
    release();
    expect(await Promise.all(burst)).toEqual([2, 2, 2]);
  });

  it('a failed run does not block the next one', async () => {
    let fail = true;
    const task = coalesce(async () => {
      if (fail) throw new Error('boom');
      return 'ok';
    });
    await expect(task()).rejects.toThrow('boom');
    fail = false;
    expect(await task()).toBe('ok');
  });
});
