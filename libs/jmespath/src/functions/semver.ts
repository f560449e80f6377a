/**
 * blang/semver v4 (what Kyverno's semver_compare uses): strict versions and its range syntax
 * (">=1.0.0 <2.0.0 || 3.x", "!=1.2.3", "1.2.x"). Deliberately not npm semver: blang lets
 * pre-releases satisfy ranges and has its own wildcard expansion.
 */

interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly pre: ReadonlyArray<string | number>;
}

const ZERO: Version = { major: 0, minor: 0, patch: 0, pre: [] };

function parseNumber(part: string, what: string): number {
  if (!/^[0-9]+$/.test(part)) throw new Error(`Invalid character(s) found in ${what} number ${JSON.stringify(part)}`);
  if (part.length > 1 && part.startsWith('0'))
    throw new Error(
      `${what[0]!.toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${JSON.stringify(part)}`,
    );
  return Number(part);
}

export function parseVersion(text: string): Version {
  if (text.length === 0) throw new Error('Version string empty');
  const [core = '', ...preParts] = text.split('+')[0]!.split('-');
  const parts = core.split('.');
  if (parts.length !== 3) throw new Error('No Major.Minor.Patch elements found');
  const pre = preParts.length ? preParts.join('-').split('.') : [];
  return {
    major: parseNumber(parts[0]!, 'major'),
    minor: parseNumber(parts[1]!, 'minor'),
    patch: parseNumber(parts[2]!, 'patch'),
    pre: pre.map((id) => {
      if (id === '' || !/^[0-9A-Za-z-]+$/.test(id))
        throw new Error(`Invalid character(s) found in prerelease ${JSON.stringify(id)}`);
      return /^[0-9]+$/.test(id) ? parseNumber(id, 'prerelease') : id;
    }),
  };
}

export function compareVersions(a: Version, b: Version): number {
  for (const key of ['major', 'minor', 'patch'] as const) if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : 1;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

/** blang's tokenizer: spaces split, except right after an operator character. */
function splitAndTrim(s: string): string[] {
  const result: string[] = [];
  let last = 0;
  let lastChar = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === ' ' && !'><='.includes(lastChar || ' ')) {
      if (last < i - 1) result.push(s.slice(last, i));
      last = i + 1;
    } else if (s[i] !== ' ') {
      lastChar = s[i]!;
    }
  }
  if (last < s.length - 1) result.push(s.slice(last));
  return result.map((part) => part.replace(/ /g, ''));
}

function splitComparator(part: string): [string, string] {
  const i = part.search(/[0-9]/);
  if (i < 0) throw new Error(`Could not get version from string: ${JSON.stringify(part)}`);
  return [part.slice(0, i).trim(), part.slice(i)];
}

function expandWildcard(part: string): string[] {
  if (!part.includes('x')) return [part];
  const [op, version] = splitComparator(part);
  const pieces = version.split('.');
  const kind = pieces[pieces.length - 1] === 'x' ? pieces.length : 0; // 2: minor wildcard, 3: patch wildcard
  let flat = version.replace('.x.x', '.x').replace('.x', '.0');
  if (flat.split('.').length === 2) flat += '.0';
  const bump = (v: string) => {
    const p = v.split('.');
    if (kind === 3) p[1] = String(Number(p[1]) + 1);
    else if (kind === 2) p[0] = String(Number(p[0]) + 1);
    return p.join('.');
  };
  switch (op) {
    case '>':
      return [`>=${bump(flat)}`];
    case '>=':
      return [`>=${flat}`];
    case '<':
      return [`<${flat}`];
    case '<=':
      return [`<${bump(flat)}`];
    case '!=':
      return [`!=${flat}`];
    default:
      return [`>=${flat}`, `<${bump(flat)}`];
  }
}

type Check = (v: Version) => boolean;

function comparator(part: string, range: string): Check {
  const [op, versionText] = splitComparator(part);
  let target: Version;
  try {
    target = parseVersion(versionText);
  } catch (error) {
    throw new Error(
      `Could not parse version ${JSON.stringify(versionText)} in ${JSON.stringify(range)}: ${(error as Error).message}`,
    );
  }
  const cmp = (v: Version) => compareVersions(v, target);
  switch (op) {
    case '':
    case '=':
    case '==':
      return (v) => cmp(v) === 0;
    case '!=':
      return (v) => cmp(v) !== 0;
    case '>':
      return (v) => cmp(v) > 0;
    case '>=':
      return (v) => cmp(v) >= 0;
    case '<':
      return (v) => cmp(v) < 0;
    case '<=':
      return (v) => cmp(v) <= 0;
  }
  throw new Error(`Could not parse comparator ${JSON.stringify(op)} in ${JSON.stringify(part)}`);
}

export function parseRange(range: string): Check {
  const parts = splitAndTrim(range);
  if (parts[0] === '||') throw new Error("First element in range is '||'");
  if (parts[parts.length - 1] === '||') throw new Error("Last element in range is '||'");
  const alternatives: Check[][] = [[]];
  for (const part of parts) {
    if (part === '||') alternatives.push([]);
    else
      for (const expanded of expandWildcard(part))
        alternatives[alternatives.length - 1]!.push(comparator(expanded, part));
  }
  return (v) => alternatives.some((all) => all.every((check) => check(v)));
}

/** semver_compare(version, range): an unparsable version counts as 0.0.0, as in Kyverno. */
export function semverSatisfies(version: string, range: string): boolean {
  let parsed = ZERO;
  try {
    parsed = parseVersion(version);
  } catch {
    // Kyverno ignores the parse error and compares the zero version.
  }
  return parseRange(range)(parsed);
}
