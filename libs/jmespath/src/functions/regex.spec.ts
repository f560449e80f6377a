import { describe, expect, it } from 'vitest';
import { jp } from '@edict/jmespath/testing';

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

  it('regex_match runs in linear time: a catastrophic pattern on a crafted input just answers', () => {
    // A backtracking engine explores 2^n paths here; RE2 walks the input once.
    const crafted = 'a'.repeat(5000) + '!';
    expect(jp("regex_match('(a+)+$', @)", crafted)).toBe(false);
    expect(jp("regex_match('(x+x+)+y', @)", 'x'.repeat(5000))).toBe(false);
    expect(jp("regex_replace_all('(a|aa)+$', @, 'b')", crafted)).toBe(crafted);
  });

  it("uses Go's RE2 syntax and errors (no lookarounds, no backreferences)", () => {
    expect(() => jp("regex_match('a(?=b)', 'ab')")).toThrow(
      'error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
    );
    expect(() => jp("regex_match('(a)\\1', 'aa')")).toThrow('error parsing regexp: invalid escape sequence: `\\1`');
    expect(() => jp("regex_match('a{1001}', 'a')")).toThrow('error parsing regexp: invalid repeat count: `{1001}`');
    expect(jp("regex_match('^\\QA.B\\E$', 'A.B')")).toBe(true);
    expect(jp("regex_match('^.$', '😀')")).toBe(true); // one rune, as in Go
  });

  it('regex_replace_all: an empty match abutting the previous match is skipped, as in Go', () => {
    expect(jp("regex_replace_all('a*', 'baaacada', 'X')")).toBe('XbXcXdX');
    expect(jp("regex_replace_all('x*', '😀', '-')")).toBe('-😀-');
  });

  it('regex_replace_all: a result past the size limit is an error before it is built', () => {
    const big = 'x'.repeat(100_000);
    expect(() => jp("regex_replace_all('', @, @)", big)).toThrow(/exceeds the 2 MiB JMESPath result size limit/);
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
