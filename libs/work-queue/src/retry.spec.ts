import { describe, expect, it } from 'vitest';
import { retryWithBackoff } from './retry';

const noSleep = { sleep: async () => undefined, random: () => 0.5 };

describe('retryWithBackoff', () => {
  it('retries every error by default until an attempt succeeds', async () => {
    let calls = 0;
    const value = await retryWithBackoff(async (attempt) => {
      calls += 1;
      if (attempt < 3) throw new Error('busy');
      return attempt;
    }, noSleep);
    expect(value).toBe(3);
    expect(calls).toBe(3);
  });

  it('gives up after `attempts`, and at once on an error `retryable` refuses', async () => {
    let calls = 0;
    const failing = async (): Promise<never> => {
      calls += 1;
      throw new Error(calls === 1 ? 'flaky' : 'final');
    };
    await expect(retryWithBackoff(failing, { ...noSleep, attempts: 4 })).rejects.toThrow('final');
    expect(calls).toBe(4);
    calls = 0;
    const onlyFlaky = (error: unknown) => error instanceof Error && error.message === 'flaky';
    await expect(retryWithBackoff(failing, { ...noSleep, retryable: onlyFlaky })).rejects.toThrow('final');
    expect(calls).toBe(2);
  });

  it('waits with jitter, growing by `factor` up to the cap', async () => {
    const delays: number[] = [];
    const jitter = [0, 1, 0.5, 0.5];
    await expect(
      retryWithBackoff(
        async () => {
          throw new Error('down');
        },
        {
          attempts: 5,
          initialDelayMs: 100,
          factor: 3,
          maxDelayMs: 1_000,
          random: () => jitter.shift()!,
          sleep: async (ms) => void delays.push(ms),
        },
      ),
    ).rejects.toThrow('down');
    // 100 x 0.5, 300 x 1.5, 900 x 1, then the cap 1000 x 1.
    expect(delays).toEqual([50, 450, 900, 1_000]);
  });
});
