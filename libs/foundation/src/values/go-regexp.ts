import { RE2JS } from 're2js';
import { BoundedCache } from '../cache/bounded-cache';
import { errorMessage } from '../errors/error-message';

/**
 * Go's `regexp` package on RE2JS, a linear-time RE2 port: Go's syntax comes natively (`(?P<name>`,
 * `(?i)`, `\z`, `[[:alpha:]]`, `\pL`, repeat counts up to 1000) with Go's error messages, and no
 * pattern can backtrack, whatever a policy or a request puts in it. Compiled patterns are cached.
 */
const compiled = new BoundedCache<RE2JS>(1000);

/** Compiles a Go regexp; throws Go's `error parsing regexp: ...` on bad syntax. */
export function compileGoRegexp(pattern: string): RE2JS {
  let regexp = compiled.get(pattern);
  if (!regexp) {
    try {
      regexp = RE2JS.compile(pattern);
    } catch (error) {
      const message = errorMessage(error);
      throw new Error(message.startsWith('error parsing regexp: ') ? message : `error parsing regexp: ${message}`);
    }
    compiled.set(pattern, regexp);
  }
  return regexp;
}

/** Go `Regexp.MatchString`: unanchored search. */
export function goRegexpMatch(pattern: string, input: string): boolean {
  return compileGoRegexp(pattern).test(input);
}

/** Go `regexp.MatchString`, where a pattern that does not compile matches nothing. */
export function goRegexpMatchLenient(pattern: string, input: string): boolean {
  try {
    return goRegexpMatch(pattern, input);
  } catch {
    return false;
  }
}

/**
 * Go `Regexp.ReplaceAllString` (template expansion) or `ReplaceAllLiteralString`. Go ignores an
 * empty match right after the previous match, which RE2JS's matcher (Java's rule) reports: skipped
 * here. `checkLength` sees the output's length as it grows, so a caller can stop a runaway result
 * before it is built.
 */
export function goRegexpReplaceAll(
  pattern: string,
  input: string,
  replacement: string,
  literal: boolean,
  checkLength: (length: number) => void = () => undefined,
): string {
  const regexp = compileGoRegexp(pattern);
  const matcher = regexp.matcher(input);
  const template = literal ? [replacement] : parseTemplate(replacement);
  const names = regexp.namedGroups();
  let out = '';
  let copiedUpTo = 0;
  let previousEnd = -1;
  while (matcher.find()) {
    const start = matcher.start();
    const end = matcher.end();
    if (start === end && start === previousEnd) continue;
    out += input.slice(copiedUpTo, start);
    for (const part of template) out += typeof part === 'string' ? part : groupText(matcher, part.group, names);
    checkLength(out.length);
    copiedUpTo = end;
    previousEnd = end;
  }
  return out + input.slice(copiedUpTo);
}

type Matcher = ReturnType<RE2JS['matcher']>;

/** A group's text by number or name; '' for a group that does not exist or did not take part. */
function groupText(matcher: Matcher, name: string, names: Record<string, number>): string {
  const index = /^\d+$/.test(name) ? Number(name) : Object.hasOwn(names, name) ? names[name] : undefined;
  if (index === undefined || index > matcher.groupCount()) return '';
  return matcher.group(index) ?? '';
}

type TemplatePart = string | { readonly group: string };

/**
 * Go `Regexp.Expand` templates: `$1`, `${1}`, `$name`, `${name}`, `$$`; a bare name takes the
 * longest run of word characters, and a malformed reference is copied literally. Parsed once per
 * call, in one pass.
 */
function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  const word = /\w+/y;
  let literal = '';
  let close = -1; // the first '}' at or after the current position, once looked up
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c !== '$' || i + 1 >= template.length) {
      literal += c;
      continue;
    }
    let name: string | undefined;
    let last = i + 1;
    if (template[i + 1] === '$') {
      literal += '$';
      i++;
      continue;
    }
    if (template[i + 1] === '{') {
      if (close < i + 2) close = template.indexOf('}', i + 2);
      if (close < 0) close = template.length; // none left: never look again
      const inner = template.slice(i + 2, close);
      if (close < template.length && /^\w+$/.test(inner)) {
        name = inner;
        last = close;
      }
    } else {
      word.lastIndex = i + 1;
      const match = word.exec(template);
      if (match) {
        name = match[0];
        last = i + match[0].length;
      }
    }
    if (name === undefined) {
      literal += c;
      continue;
    }
    if (literal) parts.push(literal);
    literal = '';
    parts.push({ group: name });
    i = last;
  }
  if (literal) parts.push(literal);
  return parts;
}
