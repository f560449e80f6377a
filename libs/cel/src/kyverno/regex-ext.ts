import { Optional, type Environment } from '@marcbachmann/cel-js';
import { compileGoRegexp, errorMessage } from '@edict/foundation';
import { celError } from '../libraries/errors';
import { namespaceFunction } from '../libraries/namespace';
import { chargeString } from '../libraries/runtime';

/**
 * cel-go's regex extension as Kyverno's environment has it: `regex.replace(target, pattern,
 * replacement[, count])` (`\1`..`\9` name groups, `\\` a backslash), `regex.extract` (the first
 * match, or its single capture group; optional) and `regex.extractAll`. On RE2 (linear time);
 * results bounded by the string cost charge.
 */
export function registerRegexExtension(env: Environment): void {
  namespaceFunction(
    env,
    'regex.replace(string, string, string): string',
    (target: string, pattern: string, replacement: string) => replace(target, pattern, replacement, -1n),
  );
  namespaceFunction(
    env,
    'regex.replace(string, string, string, int): string',
    (target: string, pattern: string, replacement: string, count: bigint) =>
      replace(target, pattern, replacement, count),
  );
  namespaceFunction(env, 'regex.extract(string, string): optional<string>', (target: string, pattern: string) => {
    chargeString(target.length, pattern.length);
    const regexp = compile(pattern);
    const group = captureGroup(regexp);
    const matcher = regexp.matcher(target);
    if (!matcher.find()) return Optional.none();
    const value = matcher.group(group);
    return value === null || value === undefined ? Optional.none() : Optional.of(value);
  });
  namespaceFunction(env, 'regex.extractAll(string, string): list<string>', (target: string, pattern: string) => {
    chargeString(target.length, pattern.length);
    const regexp = compile(pattern);
    const group = captureGroup(regexp);
    const matcher = regexp.matcher(target);
    const out: string[] = [];
    let previousEnd = -1;
    while (matcher.find()) {
      if (matcher.start() === matcher.end() && matcher.start() === previousEnd) continue;
      previousEnd = matcher.end();
      const value = matcher.group(group);
      if (value !== null && value !== undefined) out.push(value);
    }
    return out;
  });
}

type Regexp = ReturnType<typeof compileGoRegexp>;

function compile(pattern: string): Regexp {
  try {
    return compileGoRegexp(pattern);
  } catch (error) {
    throw celError(errorMessage(error));
  }
}

/** extract answers the whole match, or the pattern's only capture group; more than one is an error. */
function captureGroup(regexp: Regexp): number {
  const groups = regexp.groupCount();
  if (groups > 1) throw celError(`regular expression has more than one capturing group: ${groups}`);
  return groups;
}

function replace(target: string, pattern: string, replacement: string, count: bigint): string {
  chargeString(target.length, pattern.length + replacement.length);
  const regexp = compile(pattern);
  const parts = parseReplacement(replacement, regexp.groupCount());
  if (count === 0n) return target;
  const matcher = regexp.matcher(target);
  let out = '';
  let last = 0;
  let done = 0n;
  let previousEnd = -1;
  while ((count < 0n || done < count) && matcher.find()) {
    if (matcher.start() === matcher.end() && matcher.start() === previousEnd) continue;
    previousEnd = matcher.end();
    out += target.slice(last, matcher.start());
    for (const part of parts) out += typeof part === 'string' ? part : (matcher.group(part) ?? '');
    last = matcher.end();
    done += 1n;
    chargeString(out.length, 0);
  }
  return out + target.slice(last);
}

/** The replacement as literal text and group numbers; `\` must be followed by a digit or `\`. */
function parseReplacement(replacement: string, groups: number): (string | number)[] {
  const parts: (string | number)[] = [];
  let text = '';
  for (let i = 0; i < replacement.length; i++) {
    const char = replacement[i]!;
    if (char !== '\\') {
      text += char;
      continue;
    }
    const next = replacement[++i];
    if (next === '\\') text += '\\';
    else if (next !== undefined && next >= '0' && next <= '9') {
      const group = Number(next);
      if (group > groups) throw celError(`replacement string references unsupported capture group: \\${next}`);
      if (text) parts.push(text);
      text = '';
      parts.push(group);
    } else throw celError('invalid replacement string: a backslash must be followed by a digit or a backslash');
  }
  if (text) parts.push(text);
  return parts;
}
