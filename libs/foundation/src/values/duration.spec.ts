import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, parseDurationNanos } from './duration';

const S = 1_000_000_000n;

describe('parseDurationNanos (Go time.ParseDuration)', () => {
  it.each([
    ['0', 0n],
    ['-0', 0n],
    ['+0', 0n],
    ['0s', 0n],
    ['300ms', 300_000_000n],
    ['1.5h', 5400n * S],
    ['2h45m', 9900n * S],
    ['-1m', -60n * S],
    ['+5s', 5n * S],
    ['1ns', 1n],
    ['1us', 1000n],
    ['1µs', 1000n],
    ['1μs', 1000n],
    ['.5s', 500_000_000n],
    ['5.s', 5n * S],
    ['1h1m1s1ms1us1ns', 3661n * S + 1_001_001n],
    ['1s1s', 2n * S],
    ['0.000000001s', 1n],
    ['0.0000000009s', 0n],
    ['2562047h47m16.854775807s', (1n << 63n) - 1n],
    ['-2562047h47m16.854775808s', -(1n << 63n)],
  ])('%s → %s ns', (input, expected) => {
    expect(parseDurationNanos(input)).toBe(expected);
  });

  it.each([
    '',
    '-',
    '1',
    '10',
    's',
    '.s',
    '-.s',
    '1d',
    '1S',
    '1 h',
    ' 1h',
    '1h ',
    '1.2.3s',
    '2562047h47m16.854775808s',
    '9223372036854775808ns',
    '99999999999999999999h',
  ])('rejects %j', (input) => {
    expect(parseDurationNanos(input)).toBeUndefined();
  });

  it('parseDuration returns a number of nanoseconds', () => {
    expect(parseDuration('1m30s')).toBe(90e9);
    expect(parseDuration('nope')).toBeUndefined();
  });
});

describe('formatDuration (Go Duration.String)', () => {
  it.each([
    [0n, '0s'],
    [1n, '1ns'],
    [999n, '999ns'],
    [1000n, '1µs'],
    [1500n, '1.5µs'],
    [1_200_000n, '1.2ms'],
    [S, '1s'],
    [1_500_000_000n, '1.5s'],
    [90n * S, '1m30s'],
    [3600n * S, '1h0m0s'],
    [5400n * S, '1h30m0s'],
    [-60n * S, '-1m0s'],
    [-1n, '-1ns'],
    [(1n << 63n) - 1n, '2562047h47m16.854775807s'],
    [-(1n << 63n), '-2562047h47m16.854775808s'],
  ])('%s → %s', (ns, expected) => {
    expect(formatDuration(ns)).toBe(expected);
  });

  it('accepts numbers', () => {
    expect(formatDuration(2.5e9)).toBe('2.5s');
  });

  it('round-trips through parseDurationNanos (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (ns) => {
        expect(parseDurationNanos(formatDuration(ns))).toBe(ns);
      }),
    );
  });
});
