import { SemVer } from 'semver';

/**
 * Strict semantic versions as Kyverno parses them (blang/semver `Parse`): exactly
 * MAJOR.MINOR.PATCH with optional pre-release and build parts, no leading "v" or "=" and no
 * surrounding whitespace (which the npm `semver` parser would otherwise tolerate).
 */
const STRICT_SHAPE = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export function parseSemver(s: string): SemVer | undefined {
  if (!STRICT_SHAPE.test(s)) return undefined;
  try {
    return new SemVer(s, { loose: false });
  } catch {
    return undefined;
  }
}

/** Semver precedence (build metadata ignored): negative, zero or positive. */
export function compareSemver(a: SemVer, b: SemVer): number {
  return a.compare(b);
}
