import { describe, expect, it } from 'vitest';
import { compileWildcard, hasWildcard, wildcardMatch } from './wildcard';

describe('wildcardMatch', () => {
  it.each([
    ['*', 'anything/at/all', true],
    ['nginx:*', 'nginx:1.25', true],
    ['nginx:*', 'nginx', false],
    ['*/nginx', 'docker.io/library/nginx', true],
    ['kube-?', 'kube-a', true],
    ['kube-?', 'kube-ab', false],
    ['a.b', 'axb', false],
    ['a+b*', 'a+bc', true],
    ['exact', 'exact', true],
    ['exact', 'Exact', false],
    ['', '', true],
  ])('%s ~ %s is %s', (pattern, value, expected) => {
    expect(wildcardMatch(pattern, value)).toBe(expected);
  });

  it.each([
    ['*a*b*c', 'xxaxxbxxc', true],
    ['*a*b*c', 'xxaxxcxxb', false],
    ['a*a', 'a', false],
    ['a*a', 'aa', true],
    ['?*?', 'ab', true],
    ['?*?', 'a', false],
    ['*?x?*', 'abxcd', true],
    ['**', '', true],
  ])('%s ~ %s is %s (segments in order, none overlapping)', (pattern, value, expected) => {
    expect(wildcardMatch(pattern, value)).toBe(expected);
  });

  it('stays linear on patterns that make a backtracking matcher explode', () => {
    const value = 'a'.repeat(20_000);
    expect(wildcardMatch('*a'.repeat(40) + '*b', value)).toBe(false);
    expect(wildcardMatch('*?a'.repeat(40) + '*b', value)).toBe(false);
    expect(wildcardMatch('*a'.repeat(40) + '*', value)).toBe(true);
  });

  it('detects wildcards', () => {
    expect(hasWildcard('a*')).toBe(true);
    expect(hasWildcard('a?')).toBe(true);
    expect(hasWildcard('abc')).toBe(false);
  });
});

describe('compileWildcard', () => {
  const patterns = [
    '*',
    '',
    'nginx',
    'nginx:*',
    '*/nginx',
    'kube-?',
    '?',
    'a*b*c',
    '*a*',
    '**',
    'a?c*',
    '*.example.com',
  ];
  const values = [
    '',
    'nginx',
    'nginx:1.25',
    'docker.io/library/nginx',
    'kube-a',
    'kube-ab',
    'abc',
    'aXbYc',
    'a',
    'x.example.com',
  ];

  it('answers as wildcardMatch does, for every pattern and value', () => {
    for (const pattern of patterns) {
      const matches = compileWildcard(pattern);
      for (const value of values)
        expect([pattern, value, matches(value)]).toEqual([pattern, value, wildcardMatch(pattern, value)]);
    }
  });
});
