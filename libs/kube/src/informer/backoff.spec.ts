import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff';

describe('Backoff', () => {
  it('doubles up to the cap, adds jitter, and resets', () => {
    const noJitter = new Backoff({ initialMs: 100, maxMs: 500, jitter: 0.5 }, () => 0);
    expect([1, 2, 3, 4, 5].map(() => noJitter.next())).toEqual([100, 200, 400, 500, 500]);
    noJitter.reset();
    expect(noJitter.next()).toBe(100);
    const fullJitter = new Backoff({ initialMs: 100, maxMs: 500, jitter: 0.5 }, () => 1);
    expect([1, 2, 3, 4].map(() => fullJitter.next())).toEqual([150, 300, 600, 750]);
  });
});
