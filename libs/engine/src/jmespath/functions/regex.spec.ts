import { describe, expect, it } from 'vitest';
import { jp } from './test-helpers';

describe('regex functions', () => {
  it('regex_match: unanchored Go regexp search, numbers as text', () => {
    expect(jp("regex_match('^nginx', 'nginx:1.2')")).toBe(true);
    expect(jp("regex_match('[0-9]+', 'abc')")).toBe(false);
    expect(jp("regex_match('^1\\.5$', `1.5`)")).toBe(true);
    expect(jp("regex_match('(?i)^ABC$', 'abc')")).toBe(true);
    expect(jp("regex_match('^[[:alpha:]]+$', 'abc')")).toBe(true);
    expect(jp("regex_match('^\\pL+$', 'äbc')")).toBe(true);
    expect(jp("regex_match('^(?P<n>a)$', 'a')")).toBe(true);
    expect(jp("regex_match('a\\z', 'a')")).toBe(true);
    expect(() => jp("regex_match('(', 'a')")).toThrow(/error parsing regexp/);
    expect(() => jp("regex_match('a', `true`)")).toThrow(/type/);
  });

  it('regex_replace_all: Go template expansion', () => {
    expect(jp("regex_replace_all('h.*', '720h', '')")).toBe('720');
    expect(jp("regex_replace_all('(\\w+)@(\\w+)', 'me@host', '$2 at ${1}')")).toBe('host at me');
    expect(jp("regex_replace_all('(a)', 'a', '$1x')")).toBe(''); // "$1x" names group "1x"
    expect(jp("regex_replace_all('(a)', 'a', '${1}x')")).toBe('ax');
    expect(jp("regex_replace_all('(?P<word>b)', 'abc', '[$word]')")).toBe('a[b]c');
    expect(jp("regex_replace_all('a', 'aaa', '$$')")).toBe('$$$');
    expect(jp("regex_replace_all('^', `10`, 'v')")).toBe('v10');
    expect(jp("regex_replace_all('[0-9]', 'a1b2', `0`)")).toBe('a0b0');
    expect(jp("regex_replace_all('b*', 'abc', '-')")).toBe('-a-c-'); // Go skips an empty match after a match
    expect(() => jp("regex_replace_all('[', 'a', 'b')")).toThrow(
      /JMESPath function 'regex_replace_all': error parsing regexp/,
    );
  });

  it('regex_replace_all_literal: no expansion', () => {
    expect(jp("regex_replace_all_literal('(a)', 'xax', '$1')")).toBe('x$1x');
    expect(jp("regex_replace_all_literal('\\d', 'a1b22', '#')")).toBe('a#b##');
  });

  it('pattern_match: Kyverno wildcards', () => {
    expect(jp("pattern_match('prefix-*', 'prefix-abc')")).toBe(true);
    expect(jp("pattern_match('prefix-*', 'other')")).toBe(false);
    expect(jp("pattern_match('a?c', 'abc')")).toBe(true);
    expect(jp("pattern_match('1*', `12`)")).toBe(true);
    expect(() => jp("pattern_match('a', `null`)")).toThrow(/type/);
  });
});
