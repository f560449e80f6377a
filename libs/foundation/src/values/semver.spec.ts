import { describe, expect, it } from 'vitest';
import { compareSemver, parseSemver } from './semver';

describe('parseSemver (strict, like blang/semver Parse)', () => {
  it.each(['1.2.3', '0.0.0', '1.2.3-rc.1', '1.2.3+build.5', '10.20.30-alpha-1.beta+exp.sha.5114f85'])(
    'accepts %s',
    (s) => {
      expect(parseSemver(s)).toBeDefined();
    },
  );

  it.each(['v1.2.3', '=1.2.3', '1.2', '1', ' 1.2.3', '1.2.3 ', '01.2.3', '1.2.3-01', '1.2.x', 'latest', ''])(
    'rejects %j',
    (s) => {
      expect(parseSemver(s)).toBeUndefined();
    },
  );

  it('compares by precedence, ignoring build metadata', () => {
    const cmp = (a: string, b: string) => compareSemver(parseSemver(a)!, parseSemver(b)!);
    expect(cmp('1.5.5', '1.5.0')).toBe(1);
    expect(cmp('1.10.0', '1.9.0')).toBe(1);
    expect(cmp('1.2.3-rc.1', '1.2.3')).toBe(-1);
    expect(cmp('1.2.3-alpha.2', '1.2.3-alpha.10')).toBe(-1);
    expect(cmp('1.2.3+a', '1.2.3+b')).toBe(0);
  });
});
