import { describe, expect, it } from 'vitest';
import { cronScheduleProblem, parseCronSchedule } from './cron-schedule';

const at = (iso: string) => new Date(iso);
const next = (schedule: string, after: string) => parseCronSchedule(schedule).next(at(after))?.toISOString();

describe('parseCronSchedule', () => {
  it('finds the next slot of five-field schedules, strictly after the given time', () => {
    expect(next('*/1 * * * *', '2026-01-01T10:00:00.000Z')).toBe('2026-01-01T10:01:00.000Z');
    expect(next('*/1 * * * *', '2026-01-01T10:00:30.000Z')).toBe('2026-01-01T10:01:00.000Z');
    expect(next('*/10 * * * *', '2026-01-01T10:05:00.000Z')).toBe('2026-01-01T10:10:00.000Z');
    expect(next('30 2 * * *', '2026-01-01T03:00:00.000Z')).toBe('2026-01-02T02:30:00.000Z');
    expect(next('0 0 1 jan *', '2026-03-01T00:00:00.000Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next('5/20 * * * *', '2026-01-01T10:26:00.000Z')).toBe('2026-01-01T10:45:00.000Z');
    expect(next('0 12 * * MON-FRI', '2026-01-03T00:00:00.000Z')).toBe('2026-01-05T12:00:00.000Z');
  });

  it('reads restricted day-of-month and day-of-week as either, as cron does', () => {
    // 2026-01-13 is a Tuesday; the 15th a Thursday.
    expect(next('0 0 15 * 2', '2026-01-12T00:00:00.000Z')).toBe('2026-01-13T00:00:00.000Z');
    expect(next('0 0 15 * *', '2026-01-12T00:00:00.000Z')).toBe('2026-01-15T00:00:00.000Z');
  });

  it('knows the descriptors and @every', () => {
    expect(next('@hourly', '2026-01-01T10:00:00.000Z')).toBe('2026-01-01T11:00:00.000Z');
    expect(next('@daily', '2026-01-01T10:00:00.000Z')).toBe('2026-01-02T00:00:00.000Z');
    expect(next('@every 90s', '2026-01-01T10:00:00.400Z')).toBe('2026-01-01T10:01:30.000Z');
  });

  it('has no slot for a date that never comes', () => {
    expect(next('0 0 31 2 *', '2026-01-01T00:00:00.000Z')).toBeUndefined();
  });

  it('says what is wrong with a bad schedule', () => {
    expect(cronScheduleProblem('invalid-schedule')).toMatch(/expected exactly 5 fields, found 1/);
    expect(cronScheduleProblem('* * * * * *')).toMatch(/found 6/);
    expect(cronScheduleProblem('61 * * * *')).toMatch(/minute out of range/);
    expect(cronScheduleProblem('*/0 * * * *')).toMatch(/invalid step/);
    expect(cronScheduleProblem('* * * * 7')).toMatch(/day of week out of range/);
    expect(cronScheduleProblem('@fortnightly')).toMatch(/unrecognized descriptor/);
    expect(cronScheduleProblem('CRON_TZ=Europe/Paris * * * * *')).toMatch(/time zone/);
    expect(cronScheduleProblem('x'.repeat(300))).toMatch(/longer than/);
    expect(cronScheduleProblem('*/5 * * * *')).toBeUndefined();
  });
});
