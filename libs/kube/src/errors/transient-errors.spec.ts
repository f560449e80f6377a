import { describe, expect, it } from 'vitest';
import { KubeApiError } from './kube-api-error';
import { isTransientError, withRetry } from './transient-errors';

const noSleep = { sleep: async () => undefined, random: () => 0.5 };

describe('withRetry', () => {
  it('retries transient failures until one succeeds', async () => {
    let calls = 0;
    const value = await withRetry(async () => {
      calls += 1;
      if (calls < 3) throw new KubeApiError(503, 'ServiceUnavailable', 'busy');
      return 'ok';
    }, noSleep);
    expect(value).toBe('ok');
    expect(calls).toBe(3);
  });

  it('gives up after `attempts` and at once on a clear answer', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls += 1;
          throw new KubeApiError(500, 'InternalError', 'down');
        },
        { ...noSleep, attempts: 4 },
      ),
    ).rejects.toThrow('down');
    expect(calls).toBe(4);
    calls = 0;
    await expect(
      withRetry(async () => {
        calls += 1;
        throw new KubeApiError(422, 'Invalid', 'bad');
      }, noSleep),
    ).rejects.toThrow('bad');
    expect(calls).toBe(1);
  });

  it('backs off exponentially up to the cap', async () => {
    const delays: number[] = [];
    await expect(
      withRetry(
        async () => {
          throw new KubeApiError(429, 'TooManyRequests', 'slow down');
        },
        {
          attempts: 5,
          initialDelayMs: 100,
          maxDelayMs: 300,
          random: () => 0.5,
          sleep: async (ms) => void delays.push(ms),
        },
      ),
    ).rejects.toThrow();
    expect(delays).toEqual([100, 200, 300, 300]);
  });
});

describe('isTransientError', () => {
  it('retries network errors, 429 and 5xx but not 4xx answers', () => {
    expect(isTransientError(new Error('ECONNRESET'))).toBe(true);
    expect(isTransientError(new KubeApiError(429, '', ''))).toBe(true);
    expect(isTransientError(new KubeApiError(504, '', ''))).toBe(true);
    expect(isTransientError(new KubeApiError(403, 'Forbidden', ''))).toBe(false);
    expect(isTransientError(new KubeApiError(404, 'NotFound', ''))).toBe(false);
  });
});
