import { describe, expect, it } from 'vitest';
import { comparableText, goTrimSpace, numberText, trimSpaces } from './go-text';

describe('resource values as pattern text', () => {
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

describe('Go string helpers', () => {
  it('trims like strings.TrimSpace and strings.Trim(s, " ")', () => {
    expect(goTrimSpace(' \t\n\u0085a b\u00a0\u3000')).toBe('a b');
    expect(goTrimSpace('\ufeffa')).toBe('\ufeffa');
    expect(goTrimSpace('')).toBe('');
    expect(trimSpaces('  a\t ')).toBe('a\t');
  });
});
