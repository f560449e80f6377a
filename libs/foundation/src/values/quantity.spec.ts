import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  approximateFloat64,
  canonicalQuantity,
  compareQuantities,
  formatQuantity,
  parseDecimalQuantity,
  parseQuantity,
  quantitiesEqual,
  quantityToNumber,
  roundUpDivide,
} from './quantity';

const q = (s: string) => {
  const parsed = parseQuantity(s);
  if (!parsed) throw new Error(`expected ${s} to parse`);
  return parsed;
};

describe('parseQuantity', () => {
  it.each([
    ['1', 1_000_000_000n],
    ['500m', 500_000_000n],
    ['1k', 1_000_000_000_000n],
    ['1Ki', 1024n * 1_000_000_000n],
    ['1.5Gi', 1_610_612_736n * 1_000_000_000n],
    ['1e3', 1_000_000_000_000n],
    ['1E3', 1_000_000_000_000n],
    ['1e-3', 1_000_000n],
    ['1e+3', 1_000_000_000_000n],
    ['-2.5', -2_500_000_000n],
    ['+7', 7_000_000_000n],
    ['.5', 500_000_000n],
    ['5.', 5_000_000_000n],
    ['100n', 100n],
    ['3u', 3_000n],
    ['0', 0n],
    ['000', 0n],
  ])('%s is %s nanos', (input, nanos) => {
    expect(q(input).nanos).toBe(nanos);
  });

  it('rounds sub-nano precision up, away from zero', () => {
    expect(q('0.0000000001').nanos).toBe(1n);
    expect(q('1.0000000001').nanos).toBe(1_000_000_001n);
    expect(q('-0.0000000001').nanos).toBe(-1n);
  });

  it('caps binary quantities at the largest int64, like apimachinery', () => {
    const max = ((1n << 63n) - 1n) * 1_000_000_000n;
    expect(q('16Ei').nanos).toBe(max);
    expect(q('99999999999999999999Ki').nanos).toBe(max);
    expect(q('7Ei').nanos).toBe(7n * (1n << 60n) * 1_000_000_000n);
  });

  it('keeps decimal quantities exact beyond int64 (no cap)', () => {
    expect(q('1e100').nanos).toBe(10n ** 109n);
    const a = '2649656209477949107655321180942209802194995248351570328151081380849095312666036238810963';
    const b = '2562677619429980910394392529302247877955011135109043916899503525139662059390058923745236';
    expect(quantitiesEqual(q(a), q(b))).toBe(false);
    expect(compareQuantities(q(a), q(b))).toBe(1);
    expect(quantitiesEqual(q(a), q(`${a}.0`))).toBe(true);
    expect(formatQuantity(q('1e30'))).toBe('1e30');
  });

  it('stays bounded on absurd exponents', () => {
    expect(q('1e999999999').nanos).toBe(q('1e1000000000').nanos);
    expect(q('1e999999999').nanos > 10n ** 1000n).toBe(true);
    expect(q('1e-999999').nanos).toBe(1n);
    expect(q(`${'9'.repeat(600)}e-500`).nanos).toBe(10n ** 109n);
  });

  it('keeps apimachinery leniency: a missing number reads as zero', () => {
    for (const s of ['-', '+', '.', 'k', 'Gi', 'm']) expect(q(s).nanos).toBe(0n);
  });

  it.each(['', 'abc', '1K', '1 Gi', '1Gb', '1e', '1.2.3', 'nginx', '1x', '1Mi5', '--1', '1ee3', 'Inf'])(
    'rejects %j',
    (input) => {
      expect(parseQuantity(input)).toBeUndefined();
    },
  );

  it('remembers the notation family', () => {
    expect(q('1Gi').format).toBe('BinarySI');
    expect(q('1G').format).toBe('DecimalSI');
    expect(q('1e9').format).toBe('DecimalExponent');
    expect(q('0.5Ki').format).toBe('BinarySI');
    expect(q('0.5').format).toBe('DecimalSI');
  });
});

describe('compareQuantities', () => {
  it.each([
    ['1.5Gi', '1536Mi', 0],
    ['1Gi', '1024Mi', 0],
    ['1024', '1Ki', 0],
    ['1G', '1Gi', -1],
    ['100m', '0.1', 0],
    ['1e3', '1k', 0],
    ['-1', '0', -1],
    ['2', '1999m', 1],
  ])('%s vs %s → %d', (a, b, expected) => {
    expect(compareQuantities(q(a), q(b))).toBe(expected);
  });

  it('is exact where floats drift', () => {
    // 0.1 + 0.2 style drift would make these unequal in floating point.
    expect(compareQuantities(q('300m'), q('0.3'))).toBe(0);
    expect(compareQuantities(q('9007199254740993'), q('9007199254740992'))).toBe(1);
  });

  it('orders like the numeric value for plain decimals (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: -1e6, max: 1e6 }), (a, b) => {
        expect(compareQuantities(q(`${a}m`), q(`${b}m`))).toBe(Math.sign(a - b));
      }),
    );
  });
});

describe('formatQuantity (Kubernetes canonical form)', () => {
  it.each([
    ['1.5Gi', '1536Mi'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1.5Ki', '1536'],
    ['0.5Ki', '512'],
    ['1000Ki', '1000Ki'],
    ['1024', '1024'],
    ['1.5G', '1500M'],
    ['1500', '1500'],
    ['0.5', '500m'],
    ['1000m', '1'],
    ['1100m', '1100m'],
    ['10000k', '10M'],
    ['0.1m', '100u'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['12e6', '12e6'],
    ['1e-3', '1e-3'],
    ['0', '0'],
    ['0Gi', '0'],
    ['-1Ki', '-1Ki'],
    ['-1.5', '-1500m'],
    ['0.0000000001', '1n'],
  ])('%s → %s', (input, expected) => {
    expect(formatQuantity(q(input))).toBe(expected);
  });

  it('round-trips: canonical form parses back to the same value (property)', () => {
    const suffixes = ['', 'm', 'k', 'M', 'G', 'Ki', 'Mi', 'Gi', 'e3', 'e-2'];
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.constantFrom(...suffixes), (n, suffix) => {
        const original = q(`${n}${suffix}`);
        const canonical = formatQuantity(original);
        expect(q(canonical).nanos).toBe(original.nanos);
        expect(canonicalQuantity(canonical)).toBe(canonical);
      }),
    );
  });
});

describe('quantityToNumber', () => {
  it('approximates the value', () => {
    expect(quantityToNumber(q('1.5'))).toBe(1.5);
    expect(quantityToNumber(q('1Ki'))).toBe(1024);
    expect(quantityToNumber(q('-250m'))).toBe(-0.25);
  });
});

describe('parseDecimalQuantity', () => {
  const decimal = (s: string) => {
    const parsed = parseDecimalQuantity(s);
    return parsed && { unscaled: parsed.unscaled, scale: parsed.scale, nanos: parsed.quantity.nanos };
  };

  it('keeps the decimal places the text carries', () => {
    expect(decimal('10')).toEqual({ unscaled: 10n, scale: 0, nanos: 10_000_000_000n });
    expect(decimal('1.50')).toEqual({ unscaled: 150n, scale: 2, nanos: 1_500_000_000n });
    expect(decimal('-250m')).toEqual({ unscaled: -250n, scale: 3, nanos: -250_000_000n });
    expect(decimal('2k')).toEqual({ unscaled: 2n, scale: -3, nanos: 2_000_000_000_000n });
    expect(decimal('5e2')).toEqual({ unscaled: 5n, scale: -2, nanos: 500_000_000_000n });
    expect(decimal('0')).toEqual({ unscaled: 0n, scale: 0, nanos: 0n });
  });

  it('multiplies binary suffixes into the unscaled digits', () => {
    expect(decimal('1Ki')).toEqual({ unscaled: 1024n, scale: 0, nanos: 1024_000_000_000n });
    expect(decimal('1.5Ki')).toEqual({ unscaled: 15360n, scale: 1, nanos: 1536_000_000_000n });
  });

  it('rounds beyond nano precision up, away from zero', () => {
    expect(decimal('1.0000000001')).toEqual({ unscaled: 1_000_000_001n, scale: 9, nanos: 1_000_000_001n });
    expect(decimal('-1.0000000001')).toEqual({ unscaled: -1_000_000_001n, scale: 9, nanos: -1_000_000_001n });
    expect(decimal('1n')).toEqual({ unscaled: 1n, scale: 9, nanos: 1n });
  });

  it('agrees with parseQuantity on the value', () => {
    const text = fc
      .tuple(
        fc.boolean(),
        fc.nat(99_999),
        fc.option(fc.nat(9_999)),
        fc.constantFrom('', 'm', 'k', 'M', 'Ki', 'Mi', 'e3', 'n'),
      )
      .map(([neg, int, frac, suffix]) => `${neg ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${suffix}`);
    fc.assert(
      fc.property(text, (s) => {
        const parsed = parseDecimalQuantity(s)!;
        expect(parsed.quantity).toEqual(parseQuantity(s));
        expect(parsed.unscaled * 10n ** BigInt(9 - parsed.scale)).toBe(parsed.quantity.nanos);
      }),
    );
  });

  it('rejects what parseQuantity rejects', () => {
    expect(parseDecimalQuantity('')).toBeUndefined();
    expect(parseDecimalQuantity('1x')).toBeUndefined();
    expect(parseDecimalQuantity('1.5Gb')).toBeUndefined();
  });
});

describe('approximateFloat64', () => {
  it('scales the unscaled digits in float64 steps', () => {
    expect(approximateFloat64(parseDecimalQuantity('1.5')!)).toBe(1.5);
    expect(approximateFloat64(parseDecimalQuantity('250m')!)).toBe(0.25);
    expect(approximateFloat64(parseDecimalQuantity('2k')!)).toBe(2000);
    expect(approximateFloat64(parseDecimalQuantity('1Mi')!)).toBe(1048576);
    expect(approximateFloat64(parseDecimalQuantity('-3')!)).toBe(-3);
  });
});

describe('roundUpDivide', () => {
  it('divides exactly or rounds away from zero', () => {
    expect(roundUpDivide(10n, 5n)).toBe(2n);
    expect(roundUpDivide(11n, 5n)).toBe(3n);
    expect(roundUpDivide(-11n, 5n)).toBe(-3n);
    expect(roundUpDivide(11n, -5n)).toBe(-3n);
    expect(roundUpDivide(-11n, -5n)).toBe(3n);
  });
});
