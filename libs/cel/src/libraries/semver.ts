import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';
import { chargeString, MAX_UINT64 } from './runtime';

/** A semantic version (Kubernetes' CEL `kubernetes.Semver`). */
export class CelSemver {
  readonly celTypeName = SEMVER_TYPE;
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly prerelease: readonly string[],
    readonly build: readonly string[],
  ) {}

  equals(other: unknown): boolean {
    return other instanceof CelSemver && compareSemver(this, other) === 0;
  }
}

const SEMVER_TYPE = 'kubernetes.Semver';

/**
 * Kubernetes' CEL semver library at version 1: `semver(s)` and `isSemver(s)` (with the normalize
 * flag: a leading 'v', missing minor or patch, leading zeros accepted), major, minor, patch,
 * compareTo, isGreaterThan, isLessThan. Parsing follows blang/semver (SemVer 2.0.0, strict).
 */
export function registerSemver(env: Environment): void {
  env.registerType(SEMVER_TYPE, CelSemver);
  env.registerFunction(`semver(string): ${SEMVER_TYPE}`, (text: string) => semverOrThrow(text, false));
  env.registerFunction(`semver(string, bool): ${SEMVER_TYPE}`, (text: string, normalize: boolean) =>
    semverOrThrow(text, normalize),
  );
  env.registerFunction('isSemver(string): bool', (text: string) => !(parse(text, false) instanceof Error));
  env.registerFunction('isSemver(string, bool): bool', (text: string, normalize: boolean) => {
    return !(parse(text, normalize) instanceof Error);
  });
  env.registerFunction(`${SEMVER_TYPE}.major(): int`, (v: CelSemver) => toInt(v.major));
  env.registerFunction(`${SEMVER_TYPE}.minor(): int`, (v: CelSemver) => toInt(v.minor));
  env.registerFunction(`${SEMVER_TYPE}.patch(): int`, (v: CelSemver) => toInt(v.patch));
  env.registerFunction(`${SEMVER_TYPE}.compareTo(${SEMVER_TYPE}): int`, (a: CelSemver, b: CelSemver) =>
    BigInt(compareSemver(a, b)),
  );
  env.registerFunction(`${SEMVER_TYPE}.isGreaterThan(${SEMVER_TYPE}): bool`, (a: CelSemver, b: CelSemver) => {
    return compareSemver(a, b) === 1;
  });
  env.registerFunction(`${SEMVER_TYPE}.isLessThan(${SEMVER_TYPE}): bool`, (a: CelSemver, b: CelSemver) => {
    return compareSemver(a, b) === -1;
  });
  env.registerOperator(`${SEMVER_TYPE} == ${SEMVER_TYPE}`, (a: CelSemver, b: CelSemver) => a.equals(b));
}

/** Go converts the uint64 to int64: a huge component wraps, as there. */
function toInt(value: bigint): bigint {
  return BigInt.asIntN(64, value);
}

function semverOrThrow(text: string, normalize: boolean): CelSemver {
  const version = parse(text, normalize);
  if (version instanceof Error) throw celError(version.message);
  return version;
}

function parse(text: string, normalize: boolean): CelSemver | Error {
  chargeString(text.length);
  return normalize ? normalizeAndParse(text) : parseStrict(text);
}

/** Kubernetes' normalizeAndParse: drop a 'v', drop leading zeros, fill a missing minor or patch with 0. */
function normalizeAndParse(text: string): CelSemver | Error {
  const parts = splitN(text.startsWith('v') ? text.slice(1) : text, '.', 3).map((part) => {
    if (part.length <= 1) return part;
    const trimmed = part.replace(/^0+/, '');
    return trimmed === '' || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts.at(-1)!)) return new Error('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseStrict(parts.join('.'));
}

function splitN(text: string, separator: string, limit: number): string[] {
  const parts = text.split(separator);
  return parts.length <= limit ? parts : [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(separator)];
}

const ALPHANUMERIC = /^[0-9A-Za-z-]+$/;

/** blang/semver's Parse. */
function parseStrict(text: string): CelSemver | Error {
  if (text === '') return new Error('Version string empty');
  const parts = splitN(text, '.', 3);
  if (parts.length !== 3) return new Error('No Major.Minor.Patch elements found');
  const number = (value: string, what: string): bigint | Error => {
    if (!/^[0-9]+$/.test(value))
      return new Error(`Invalid character(s) found in ${what} number ${JSON.stringify(value)}`);
    if (value.length > 1 && value.startsWith('0')) {
      return new Error(
        `${what[0]!.toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${JSON.stringify(value)}`,
      );
    }
    const parsed = BigInt(value);
    return parsed > MAX_UINT64
      ? new Error(`strconv.ParseUint: parsing ${JSON.stringify(value)}: value out of range`)
      : parsed;
  };
  const major = number(parts[0]!, 'major');
  if (major instanceof Error) return major;
  const minor = number(parts[1]!, 'minor');
  if (minor instanceof Error) return minor;
  let patchText = parts[2]!;
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchText.indexOf('+');
  if (plus >= 0) {
    build = patchText.slice(plus + 1).split('.');
    patchText = patchText.slice(0, plus);
  }
  const dash = patchText.indexOf('-');
  if (dash >= 0) {
    prerelease = patchText.slice(dash + 1).split('.');
    patchText = patchText.slice(0, dash);
  }
  const patch = number(patchText, 'patch');
  if (patch instanceof Error) return patch;
  for (const identifier of prerelease) {
    if (identifier === '') return new Error('Prerelease is empty');
    if (/^[0-9]+$/.test(identifier)) {
      if (identifier.length > 1 && identifier.startsWith('0')) {
        return new Error(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(identifier)}`);
      }
    } else if (!ALPHANUMERIC.test(identifier)) {
      return new Error(`Invalid character(s) found in prerelease ${JSON.stringify(identifier)}`);
    }
  }
  for (const identifier of build) {
    if (identifier === '') return new Error('Build meta data is empty');
    if (!ALPHANUMERIC.test(identifier)) {
      return new Error(`Invalid character(s) found in build meta data ${JSON.stringify(identifier)}`);
    }
  }
  return new CelSemver(major, minor, patch, prerelease, build);
}

/** SemVer 2.0.0 precedence: numbers, then a release above its prereleases, identifiers left to right. */
function compareSemver(a: CelSemver, b: CelSemver): number {
  for (const key of ['major', 'minor', 'patch'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length === 0 ? 1 : -1;
  }
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i]!;
    const y = b.prerelease[i]!;
    if (x === y) continue;
    const xNumeric = /^[0-9]+$/.test(x);
    const yNumeric = /^[0-9]+$/.test(y);
    if (xNumeric && yNumeric) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}
