import { describe, expect, it } from 'vitest';
import {
  comparableText,
  goFloatE,
  goFloatF,
  goFloatV,
  goTrimSpace,
  goTypeName,
  goValueText,
  numberText,
  trimSpaces,
} from './go-text';

describe('Go number formatting', () => {
  it('prints %v of float64 like fmt', () => {
    expect(goFloatV(1e6)).toBe('1e+06');
    expect(goFloatV(123456)).toBe('123456');
    expect(goFloatV(1234567.5)).toBe('1.2345675e+06');
    expect(goFloatV(0.5)).toBe('0.5');
    expect(goFloatV(0.0001)).toBe('0.0001');
    expect(goFloatV(0.00001)).toBe('1e-05');
    expect(goFloatV(-2.5e-7)).toBe('-2.5e-07');
    expect(goFloatV(1e100)).toBe('1e+100');
    expect(goFloatV(0)).toBe('0');
    expect(goFloatV(-0)).toBe('-0');
  });

  it("prints FormatFloat(v, 'E', -1) and %f", () => {
    expect(goFloatE(5)).toBe('5E+00');
    expect(goFloatE(0.125)).toBe('1.25E-01');
    expect(goFloatE(-1234.5)).toBe('-1.2345E+03');
    expect(goFloatE(0)).toBe('0E+00');
    expect(goFloatF(0.5)).toBe('0.500000');
    expect(goFloatF(-1.25)).toBe('-1.250000');
    expect(goFloatF(1e22)).toBe('10000000000000000000000.000000');
  });

  it('converts resource values the way the comparisons do', () => {
    expect(numberText(null)).toBe('0');
    expect(numberText(undefined)).toBe('0');
    expect(numberText(42)).toBe('42');
    expect(numberText(0.5)).toBe('0.500000');
    expect(numberText('x')).toBe('x');
    expect(numberText(true)).toBeUndefined();
    expect(numberText([])).toBeUndefined();
    expect(comparableText(42)).toBe('42');
    expect(comparableText(0.5)).toBe('5E-01');
    expect(comparableText(false)).toBe('false');
    expect(comparableText(null)).toBeUndefined();
    expect(comparableText({})).toBeUndefined();
  });
});

describe('Go %v and %T of JSON values', () => {
  it('formats nested values like fmt', () => {
    expect(goValueText({ b: 1, a: [1, 'x', null] }, 'resource')).toBe('map[a:[1 x <nil>] b:1]');
    expect(goValueText([], 'resource')).toBe('[]');
    expect(goValueText({}, 'resource')).toBe('map[]');
    expect(goValueText(true, 'pattern')).toBe('true');
    expect(goValueText(1000000, 'resource')).toBe('1000000');
    expect(goValueText(1000000, 'pattern')).toBe('1e+06');
    expect(goValueText(undefined, 'resource')).toBe('<nil>');
  });

  it('names Go types', () => {
    expect(goTypeName({}, 'resource')).toBe('map[string]interface {}');
    expect(goTypeName([], 'resource')).toBe('[]interface {}');
    expect(goTypeName('a', 'resource')).toBe('string');
    expect(goTypeName(1, 'resource')).toBe('int64');
    expect(goTypeName(1.5, 'resource')).toBe('float64');
    expect(goTypeName(1, 'pattern')).toBe('float64');
    expect(goTypeName(false, 'resource')).toBe('bool');
    expect(goTypeName(null, 'resource')).toBe('<nil>');
  });
});

describe('Go string helpers', () => {
  it('trims like strings.TrimSpace and strings.Trim(s, " ")', () => {
    expect(goTrimSpace(' \t\n\u0085a b\u00a0\u3000')).toBe('a b');
    expect(goTrimSpace('\ufeffa')).toBe('\ufeffa');
    expect(goTrimSpace('')).toBe('');
    expect(trimSpaces('  a\t ')).toBe('a\t');
  });
});
