import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '@edict/foundation';
import { setJmesPathClock } from '../clock';
import { jp } from '@edict/jmespath/testing';

const NOW = new Date('2024-03-10T12:30:45.250Z');

beforeAll(() => setJmesPathClock({ now: () => NOW }));
afterAll(() => setJmesPathClock(systemClock));

describe('time functions', () => {
  it('time_now / time_now_utc use the configured clock, RFC 3339 without fractions', () => {
    expect(jp('time_now()')).toBe('2024-03-10T12:30:45Z');
    expect(jp('time_now_utc()')).toBe('2024-03-10T12:30:45Z');
    expect(() => jp("time_now('x')")).toThrow(/arity/);
  });

  it('time_since: layout, start, optional end', () => {
    expect(jp("time_since('', '2024-03-10T12:00:00Z', '')")).toBe('30m45.25s');
    expect(jp("time_since('', '2024-03-10T12:00:00Z', '2024-03-10T13:00:00Z')")).toBe('1h0m0s');
    expect(jp("time_since('2006-01-02', '2024-03-01', '2024-03-02')")).toBe('24h0m0s');
    expect(jp("time_since('', '2024-03-10T13:00:00+01:00', '2024-03-10T12:00:00Z')")).toBe('0s');
    expect(jp("time_since('', '2024-03-10T12:00:01Z', '2024-03-10T12:00:00Z')")).toBe('-1s');
    expect(() => jp("time_since('', 'yesterday', '')")).toThrow(
      'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    );
  });

  it('time_parse: Go layouts and Unix epochs', () => {
    expect(jp("time_parse('2006-01-02T15:04:05Z07:00', '2021-01-02T15:04:05-07:00')")).toBe(
      '2021-01-02T15:04:05-07:00',
    );
    expect(jp("time_parse('Mon Jan 2 15:04:05 MST 2006', 'Sat Jan 2 15:04:05 UTC 2021')")).toBe('2021-01-02T15:04:05Z');
    expect(jp("time_parse('02 Jan 06 15:04 -0700', '05 Mar 24 08:15 +0200')")).toBe('2024-03-05T08:15:00+02:00');
    expect(jp("time_parse('2006-01-02 3:04PM', '2024-03-05 1:07PM')")).toBe('2024-03-05T13:07:00Z');
    expect(jp("time_parse('1136239445', '1136239445')")).toBe('2006-01-02T22:04:05Z');
    expect(jp("time_parse('2006-01-02T15:04:05.000Z', '2024-03-05T08:15:00.123Z')")).toBe('2024-03-05T08:15:00Z');
    expect(() => jp("time_parse('0', 'abc')")).toThrow('strconv.ParseInt: parsing "abc": invalid syntax');
    expect(() => jp("time_parse('2006-01-02', '2024-02-30')")).toThrow('parsing time "2024-02-30": day out of range');
    expect(() => jp("time_parse('2006-01-02', '2024-13-01')")).toThrow('month out of range');
    expect(() => jp("time_parse('2006-01-02', '2024-01-01x')")).toThrow('extra text: "x"');
  });

  it('accepts fractional seconds in RFC 3339 input and keeps the offset', () => {
    expect(jp("time_utc('2021-01-02T15:04:05.999+02:00')")).toBe('2021-01-02T13:04:05Z');
    expect(jp("time_add('2021-01-02T15:04:05+02:00', '1h30m')")).toBe('2021-01-02T16:34:05+02:00');
  });

  it('time_add', () => {
    expect(jp("time_add('2021-01-02T15:04:05Z', '-24h')")).toBe('2021-01-01T15:04:05Z');
    expect(jp("time_add('2021-12-31T23:59:59Z', '1s')")).toBe('2022-01-01T00:00:00Z');
    expect(() => jp("time_add('2021-01-02T15:04:05Z', '1d')")).toThrow('time: invalid duration "1d"');
    expect(() => jp("time_add('2021-01-02', '1h')")).toThrow(/cannot parse "" as "T"/);
  });

  it('time_to_cron: minute hour day month weekday in the time’s own offset', () => {
    expect(jp("time_to_cron('2021-01-02T15:04:05Z')")).toBe('4 15 2 1 6');
    expect(jp("time_to_cron('2024-03-10T00:30:00+05:00')")).toBe('30 0 10 3 0');
  });

  it('time_utc', () => {
    expect(jp("time_utc('2021-01-02T18:04:05+05:30')")).toBe('2021-01-02T12:34:05Z');
    expect(jp("time_utc('2021-01-02T18:04:05Z')")).toBe('2021-01-02T18:04:05Z');
  });

  it('time_diff', () => {
    expect(jp("time_diff('2021-01-02T15:04:05Z', '2021-01-02T16:04:05Z')")).toBe('1h0m0s');
    expect(jp("time_diff('2021-01-02T16:04:05Z', '2021-01-02T15:04:05Z')")).toBe('-1h0m0s');
    expect(jp("time_diff('2021-01-02T15:04:05Z', '2021-01-02T15:04:05.5Z')")).toBe('500ms');
    expect(jp("time_diff('1800-01-01T00:00:00Z', '2300-01-01T00:00:00Z')")).toBe('2562047h47m16.854775807s'); // saturates
  });

  it('time_before / time_after / time_between (exclusive bounds)', () => {
    expect(jp("time_before('2021-01-02T15:04:05Z', '2021-01-02T15:04:06Z')")).toBe(true);
    expect(jp("time_before('2021-01-02T15:04:05Z', '2021-01-02T15:04:05Z')")).toBe(false);
    expect(jp("time_after('2021-01-02T17:04:05+02:00', '2021-01-02T15:04:04Z')")).toBe(true);
    expect(jp("time_between('2021-01-02T15:04:05Z', '2021-01-01T00:00:00Z', '2021-01-03T00:00:00Z')")).toBe(true);
    expect(jp("time_between('2021-01-01T00:00:00Z', '2021-01-01T00:00:00Z', '2021-01-03T00:00:00Z')")).toBe(false);
    expect(() => jp("time_before('2021-01-02', '2021-01-02T15:04:05Z')")).toThrow(/parsing time/);
  });

  it('time_truncate: relative to Go’s zero time, keeping the offset', () => {
    expect(jp("time_truncate('2021-01-02T15:04:05Z', '1h')")).toBe('2021-01-02T15:00:00Z');
    expect(jp("time_truncate('2021-01-02T15:04:05Z', '24h')")).toBe('2021-01-02T00:00:00Z');
    expect(jp("time_truncate('2021-01-02T15:04:05+05:30', '1h')")).toBe('2021-01-02T14:30:00+05:30');
    expect(jp("time_truncate('2021-01-02T15:04:05Z', '0s')")).toBe('2021-01-02T15:04:05Z');
    expect(jp("time_truncate('2021-01-02T15:04:05Z', '168h')")).toBe('2020-12-28T00:00:00Z'); // weeks start on Monday of year 1
  });
});
