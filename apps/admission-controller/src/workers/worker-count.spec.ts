import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { coresOfCpuMax, reviewWorkerCount, usableCores } from './worker-count';

describe('reviewWorkerCount', () => {
  it('takes a count as given, 0 being in-process', () => {
    expect(reviewWorkerCount('0', 8)).toBe(0);
    expect(reviewWorkerCount('3', 8)).toBe(3);
  });

  it('gives auto one worker per usable core, none on one core', () => {
    expect(reviewWorkerCount('auto', 4)).toBe(4);
    expect(reviewWorkerCount('auto', 1)).toBe(0);
    expect(reviewWorkerCount('auto', 200)).toBe(64);
  });
});

describe('usableCores', () => {
  it('caps the CPU affinity by the cgroup quota, rounding a fractional quota up', () => {
    expect(coresOfCpuMax('150000 100000\n')).toBe(2);
    expect(coresOfCpuMax('50000 100000')).toBe(1);
    expect(usableCores('100000 100000')).toBe(1);
  });

  it('reads no limit from `max` or an unreadable file', () => {
    expect(coresOfCpuMax('max 100000')).toBeUndefined();
    expect(coresOfCpuMax('garbage')).toBeUndefined();
    expect(usableCores('max 100000')).toBe(availableParallelism());
    expect(usableCores(undefined)).toBe(availableParallelism());
  });
});
