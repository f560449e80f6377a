import { describe, expect, it } from 'vitest';
import { celFailure, evaluateCel } from './testing';

describe("Kubernetes' CEL semver library", () => {
  it('parses strictly, or normalized when asked', () => {
    expect(evaluateCel("[semver('1.2.3').major(), semver('1.2.3').minor(), semver('1.2.3').patch()]")).toEqual([
      1n,
      2n,
      3n,
    ]);
    expect(evaluateCel("[isSemver('v1.0.0'), isSemver('1.0'), isSemver('01.0.0'), isSemver('1.0.0-rc.01')]")).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(evaluateCel("[isSemver('v1.0', true), isSemver('1', true), isSemver('1.0-rc', true)]")).toEqual([
      true,
      true,
      false,
    ]);
    expect(evaluateCel("semver('v01.02.03', true) == semver('1.2.3')")).toBe(true);
    expect(celFailure("semver('1.0')")).toContain('No Major.Minor.Patch elements found');
    expect(celFailure("semver('1.0.0-')")).toContain('Prerelease is empty');
  });

  it('orders by SemVer precedence, build metadata ignored', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ];
    for (let i = 1; i < ordered.length; i++) {
      expect(evaluateCel(`semver('${ordered[i - 1]}').isLessThan(semver('${ordered[i]}'))`), ordered[i]).toBe(true);
      expect(evaluateCel(`semver('${ordered[i]}').compareTo(semver('${ordered[i - 1]}'))`)).toBe(1n);
    }
    expect(evaluateCel("semver('1.2.3+build.5').compareTo(semver('1.2.3'))")).toBe(0n);
    expect(evaluateCel("semver('2.0.0').isGreaterThan(semver('1.99.99'))")).toBe(true);
  });
});
