import { describe, expect, it } from 'vitest';
import { goParseFloat, goUnderscoresAllowed } from './go-float';

describe('goParseFloat (strconv.ParseFloat(s, 64))', () => {
  it.each<[string, number]>([
    ['1', 1],
    ['-1.5', -1.5],
    ['+1.5', 1.5],
    ['.5', 0.5],
    ['+.5', 0.5],
    ['5.', 5],
    ['007', 7],
    ['1e3', 1000],
    ['1.e3', 1000],
    ['+2E-2', 0.02],
    ['1e-400', 0], // underflow is not an error in Go
    ['0e99999', 0],
    ['1.7976931348623157e308', Number.MAX_VALUE],
    ['0.1', 0.1],
  ])('decimal %s → %s', (s, n) => {
    expect(goParseFloat(s)).toBe(n);
  });

  it('keeps the sign of zero', () => {
    expect(Object.is(goParseFloat('-0'), -0)).toBe(true);
    expect(Object.is(goParseFloat('-0x0p0'), -0)).toBe(true);
    expect(Object.is(goParseFloat('-1e-400'), -0)).toBe(true);
  });

  it.each<[string, number]>([
    ['1_000', 1000],
    ['1_23.50_0_0e+1_2', 1.235e14],
    ['-1_0', -10],
    ['0x_1_2.3_4_5p+1_2', 74565],
    ['0x1p1_0', 1024],
  ])('underscores between digits: %s → %s', (s, n) => {
    expect(goParseFloat(s)).toBe(n);
  });

  it.each([
    '_1',
    '1_',
    '1__0',
    '-_1',
    '+_1',
    '123_.5',
    '123._5',
    '123.5_e+12',
    '123.5e_+12',
    '123.5e+_12',
    '123.5e+12_',
    '-_0x12.345p+12',
    '0x1_p4',
  ])('rejects misplaced underscores: %j', (s) => {
    expect(goParseFloat(s)).toBeUndefined();
  });

  it.each<[string, number]>([
    ['0x1p-2', 0.25],
    ['0x1p4', 16],
    ['0X1P4', 16],
    ['0x1.8p1', 3],
    ['0x.8p1', 1],
    ['0x1.p0', 1],
    ['-0xAp0', -10],
    ['0x1p-1074', 5e-324],
    ['0x1p-1075', 0], // exactly half the smallest subnormal: ties to even (0)
    ['0x1.8p-1075', 5e-324], // above the half: rounds up
    ['0x1.fffffffffffffp1023', Number.MAX_VALUE],
    ['0x1.00000000000008p0', 1], // halfway, ties to even (down)
    ['0x1.00000000000018p0', 1.0000000000000004], // halfway, ties to even (up)
    ['0x1.000000000000081p0', 1.0000000000000002], // just above halfway
  ])('hex %s → %s', (s, n) => {
    expect(goParseFloat(s)).toBe(n);
  });

  it.each<[string, number]>([
    ['inf', Infinity],
    ['+Inf', Infinity],
    ['-inf', -Infinity],
    ['INFINITY', Infinity],
    ['-Infinity', -Infinity],
  ])('infinity spelling %s', (s, n) => {
    expect(goParseFloat(s)).toBe(n);
  });

  it('reads NaN in any case, unsigned only', () => {
    expect(goParseFloat('NaN')).toBeNaN();
    expect(goParseFloat('nan')).toBeNaN();
    expect(goParseFloat('+NaN')).toBeUndefined();
    expect(goParseFloat('-nan')).toBeUndefined();
  });

  it.each([
    '',
    ' 1',
    '1 ',
    'abc',
    '1Gi',
    '1e',
    '1e+',
    '.',
    '.e1',
    '+',
    '1.2.3',
    'infin',
    'infinit',
    '0x',
    '0x10', // hex needs a p exponent
    '0x1e3',
    '0xp1',
    '0x.p1',
    '0x1p',
    '0b101',
    '0o17',
    '1e400', // ErrRange
    '-1e400',
    '0x1p1024',
    '0x1.fffffffffffff8p1023', // rounds up past MaxFloat64
  ])('errors on %j', (s) => {
    expect(goParseFloat(s)).toBeUndefined();
  });
});

describe('goUnderscoresAllowed', () => {
  it('accepts underscores after a base prefix and between digits', () => {
    expect(goUnderscoresAllowed('0b_1')).toBe(true);
    expect(goUnderscoresAllowed('0xa_b')).toBe(true);
    expect(goUnderscoresAllowed('1_2')).toBe(true);
  });

  it('rejects them at the edges or next to non-digits', () => {
    expect(goUnderscoresAllowed('a_b')).toBe(false); // not hex without the prefix
    expect(goUnderscoresAllowed('1_')).toBe(false);
    expect(goUnderscoresAllowed('_1')).toBe(false);
  });
});
