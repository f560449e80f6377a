import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

describe('time library', () => {
  it('gives the current time', async () => {
    const now = (await evaluateKyverno('time.now()')) as Date;
    expect(now).toBeInstanceOf(Date);
    await expect(evaluateKyverno('time.now() > timestamp("2020-01-01T00:00:00Z")')).resolves.toBe(true);
  });

  it("truncates to a multiple of the duration since Go's zero time", async () => {
    await expect(evaluateKyverno('time.truncate(timestamp("2024-05-06T10:37:45Z"), duration("1h"))')).resolves.toEqual(
      new Date('2024-05-06T10:00:00Z'),
    );
    await expect(evaluateKyverno('time.truncate(timestamp("2024-05-06T10:37:45Z"), duration("15m"))')).resolves.toEqual(
      new Date('2024-05-06T10:30:00Z'),
    );
    // A week counts from Monday, January 1 of year 1 (Go), not from the Unix epoch (a Thursday).
    await expect(
      evaluateKyverno('time.truncate(timestamp("2024-05-08T10:00:00Z"), duration("168h"))'),
    ).resolves.toEqual(new Date('2024-05-06T00:00:00Z'));
    await expect(evaluateKyverno('time.truncate(timestamp("2024-05-06T10:37:45Z"), duration("0s"))')).resolves.toEqual(
      new Date('2024-05-06T10:37:45Z'),
    );
  });

  it('writes a timestamp as a cron schedule (minute hour day month weekday, UTC)', async () => {
    await expect(evaluateKyverno('time.toCron(timestamp("2024-05-07T09:05:00Z"))')).resolves.toBe('5 9 7 5 2');
  });
});
