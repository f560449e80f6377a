import { describe, expect, it } from 'vitest';
import { microTime, parseKubeTime } from './micro-time';

describe('microTime', () => {
  it('has exactly six fractional digits', () => {
    expect(microTime(new Date('2026-11-03T10:20:30.456Z'))).toBe('2026-11-03T10:20:30.456000Z');
    expect(microTime(new Date('2026-11-03T10:20:30Z'))).toBe('2026-11-03T10:20:30.000000Z');
    expect(microTime()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('rejects an invalid date', () => {
    expect(() => microTime(new Date('nope'))).toThrow(RangeError);
  });

  it('parses MicroTime and Time back', () => {
    expect(parseKubeTime('2026-11-03T10:20:30.456789Z')?.toISOString()).toBe('2026-11-03T10:20:30.456Z');
    expect(parseKubeTime('2026-11-03T10:20:30Z')?.toISOString()).toBe('2026-11-03T10:20:30.000Z');
    expect(parseKubeTime('2026-11-03T12:20:30.5+02:00')?.toISOString()).toBe('2026-11-03T10:20:30.500Z');
    expect(parseKubeTime('yesterday')).toBeUndefined();
    expect(parseKubeTime(5)).toBeUndefined();
  });

  it('accepts the Date objects client-node returns', () => {
    const date = new Date('2026-11-03T10:20:30.456Z');
    expect(parseKubeTime(date)).toBe(date);
    expect(parseKubeTime(new Date('nope'))).toBeUndefined();
  });
});
