import { describe, expect, it } from 'vitest';
import { hasWildcard, wildcardMatch } from './wildcard';

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

  it('detects wildcards', () => {
    expect(hasWildcard('a*')).toBe(true);
    expect(hasWildcard('a?')).toBe(true);
    expect(hasWildcard('abc')).toBe(false);
  });
});
