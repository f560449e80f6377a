import { describe, expect, it } from 'vitest';
import { jp } from '@edict/jmespath/testing';

describe('string functions', () => {
  it('compare: byte-wise order as -1/0/1', () => {
    expect(jp("compare('a', 'b')")).toBe(-1);
    expect(jp("compare('b', 'a')")).toBe(1);
    expect(jp("compare('a', 'a')")).toBe(0);
    expect(jp("compare('', 'a')")).toBe(-1);
    expect(jp("compare('B', 'a')")).toBe(-1); // upper case sorts first
    expect(jp("compare('\uffff', '\u{1F600}')")).toBe(-1); // code point, not UTF-16 order
    expect(() => jp("compare('a', `1`)")).toThrow(/expected argument 2 to be type \(string\)/);
  });

  it('equal_fold: case-insensitive equality', () => {
    expect(jp("equal_fold('Hello', 'hELLO')")).toBe(true);
    expect(jp("equal_fold('Hello', 'Hell')")).toBe(false);
    expect(jp("equal_fold('straße', 'STRASSE')")).toBe(false); // simple folding only
    expect(jp("equal_fold('', '')")).toBe(true);
  });

  it('replace: counted replacement, negative count means all', () => {
    expect(jp("replace('a-b-c', '-', '+', `1`)")).toBe('a+b-c');
    expect(jp("replace('a-b-c', '-', '+', `-1`)")).toBe('a+b+c');
    expect(jp("replace('a-b-c', '-', '+', `0`)")).toBe('a-b-c');
    expect(jp("replace('ab', '', '.', `2`)")).toBe('.a.b');
    expect(jp("replace('a-b', '-', '+', `1.9`)")).toBe('a+b');
    expect(() => jp("replace('a', 'a', 'b')")).toThrow(/arity/);
  });

  it('replace_all', () => {
    expect(jp("replace_all('a.b.c', '.', '/')")).toBe('a/b/c');
    expect(jp("replace_all('abc', '', '-')")).toBe('-a-b-c-');
    expect(jp("replace_all('', 'x', 'y')")).toBe('');
  });

  it('to_upper / to_lower', () => {
    expect(jp("to_upper('abc-Ä')")).toBe('ABC-Ä');
    expect(jp("to_lower('ABC-Ä')")).toBe('abc-ä');
    expect(jp("to_upper('ß')")).toBe('ß'); // Go maps rune by rune
    expect(() => jp('to_lower(`null`)')).toThrow(/to_lower/);
  });

  it('trim / trim_prefix', () => {
    expect(jp("trim('  xx  ', ' ')")).toBe('xx');
    expect(jp("trim('--a-b--', '-')")).toBe('a-b');
    expect(jp("trim('abcba', 'ab')")).toBe('c');
    expect(jp("trim('abc', '')")).toBe('abc');
    expect(jp("trim_prefix('v1.2.3', 'v')")).toBe('1.2.3');
    expect(jp("trim_prefix('1.2.3', 'v')")).toBe('1.2.3');
    expect(jp("trim_prefix('vv1', 'v')")).toBe('v1');
  });

  it('split: Go strings.Split (Kyverno replaces the standard split)', () => {
    expect(jp("split('a/b/c', '/')")).toEqual(['a', 'b', 'c']);
    expect(jp("split('/a', '/')")).toEqual(['', 'a']);
    expect(jp("split('', '/')")).toEqual(['']);
    expect(jp("split('ab', '')")).toEqual(['a', 'b']);
    expect(() => jp("split('a,b', ',', `1`)")).toThrow(/arity/);
  });

  it('to_boolean: only true/false in any case', () => {
    expect(jp("to_boolean('TruE')")).toBe(true);
    expect(jp("to_boolean('false')")).toBe(false);
    expect(() => jp("to_boolean('yes')")).toThrow(
      "JMESPath function 'to_boolean': lowercase argument must be 'true' or 'false' (provided: 'yes')",
    );
  });

  it('truncate: by runes, negative length means empty', () => {
    expect(jp("truncate('kubernetes', `4`)")).toBe('kube');
    expect(jp("truncate('kube', `10`)")).toBe('kube');
    expect(jp("truncate('kube', `-1`)")).toBe('');
    expect(jp("truncate('äöü', `2`)")).toBe('äö');
    expect(() => jp("truncate('kube', '4')")).toThrow(/truncate\(\) expected argument 2 to be type \(number\)/);
  });

  it('replace and replace_all: a result past the size limit is an error before it is built', () => {
    const big = 'x'.repeat(100_000);
    expect(() => jp("replace_all(@, '', @)", big)).toThrow(
      'the result of replace_all() exceeds the 2 MiB JMESPath result size limit',
    );
    expect(() => jp("replace(@, 'x', @, `-1`)", big)).toThrow(/the result of replace\(\) exceeds/);
    expect(jp("replace(@, 'x', 'yy', `2`)", 'xxx')).toBe('yyyyx');
  });
});
