import { describe, expect, it } from 'vitest';
import { deadlineFromTimeout, decideWithin, parseTimeout, timeoutDecision, withDeadline } from './deadline';

describe('deadline', () => {
  it('parses the API server timeout query as a Go duration', () => {
    expect(parseTimeout('10s')).toBe(10_000);
    expect(parseTimeout('1m30s')).toBe(90_000);
    expect(parseTimeout('250ms')).toBe(250);
    expect(parseTimeout('1.5s')).toBe(1_500);
    expect(parseTimeout('ten')).toBeUndefined();
    expect(parseTimeout('10')).toBeUndefined();
    expect(parseTimeout(undefined)).toBeUndefined();
  });

  it('answers a little before the API server gives up', () => {
    expect(deadlineFromTimeout('10s')).toBe(9_000);
    expect(deadlineFromTimeout('30s')).toBe(29_000);
    expect(deadlineFromTimeout('500ms')).toBe(400);
    expect(deadlineFromTimeout(undefined)).toBe(9_000);
    expect(deadlineFromTimeout('garbage', 5_000)).toBe(4_500);
  });

  it("clamps the timeout to Kubernetes' 30 s maximum, so a huge one cannot overflow a timer", () => {
    expect(deadlineFromTimeout('30s')).toBe(29_000);
    expect(deadlineFromTimeout('31s')).toBe(29_000);
    expect(deadlineFromTimeout('1000h')).toBe(29_000);
    expect(deadlineFromTimeout(`${'9'.repeat(400)}s`)).toBe(29_000);
    // setTimeout's limit is 2^31-1 ms: anything past it would fire at once.
    expect(deadlineFromTimeout('1000h')).toBeLessThan(2 ** 31 - 1);
  });

  it('keeps a short timeout (the API server sends less when its own request has less time left), never below 1 ms', () => {
    expect(deadlineFromTimeout('2s')).toBe(1_800);
    expect(deadlineFromTimeout('150ms')).toBe(50);
    expect(deadlineFromTimeout('1ms')).toBe(1);
    expect(deadlineFromTimeout('1ns')).toBe(1);
  });

  it('takes the default for a timeout that is absent, zero or not a Go duration', () => {
    for (const garbage of ['', '0s', '-5s', '10', 'ten', '1e9s', '10s;rm', ' 10s', '10 s', 'NaNs', 'Infinitys'])
      expect(deadlineFromTimeout(garbage), garbage).toBe(9_000);
  });

  it('returns the value when the work is on time', async () => {
    await expect(withDeadline(Promise.resolve(42), 50)).resolves.toEqual({ timedOut: false, value: 42 });
  });

  it('follows the failure policy when the deadline passes', async () => {
    const slow = new Promise<{ decision: { allowed: boolean } }>((resolve) =>
      setTimeout(() => resolve({ decision: { allowed: true } }), 200),
    );
    const failed = await decideWithin(slow, 10, 'Fail');
    expect(failed.timedOut).toBe(true);
    expect(failed.decision.allowed).toBe(false);
    expect(failed.decision.message).toBe(
      "policy evaluation did not finish within 10ms; the request is denied because the webhook's failure policy is Fail",
    );
    const ignored = await decideWithin(slow, 10, 'Ignore');
    expect(ignored.decision).toEqual({ allowed: true });
    expect(timeoutDecision('Ignore', 5)).toEqual({ allowed: true });
  });

  it('does not start work whose time is already up, and answers by the failure policy', async () => {
    let started = false;
    const work = async () => {
      started = true;
      return { decision: { allowed: true } };
    };
    const late = await decideWithin(work, 0, 'Fail', { totalMs: 9_000 });
    expect(late).toEqual({ decision: timeoutDecision('Fail', 9_000), timedOut: true });
    expect(started).toBe(false);
  });

  it('passes through the decision of work that finishes in time', async () => {
    const quick = Promise.resolve({ decision: { allowed: false, message: 'denied' } });
    const result = await decideWithin(quick, 100, 'Ignore');
    expect(result).toMatchObject({ timedOut: false, decision: { allowed: false, message: 'denied' } });
  });
});
