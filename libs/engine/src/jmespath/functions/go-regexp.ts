/**
 * Go RE2 patterns run on JS RegExp. The syntaxes mostly agree; this translates the differences
 * that show up in policies: leading flag groups `(?i)`/`(?s)`/`(?m)`, `(?P<name>`, `\z`/`\A`,
 * POSIX classes `[[:alpha:]]` and one-letter Unicode classes `\pL`. Compiled forms are cached.
 */

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 500;

/** Compiles a Go regexp as a global JS RegExp; throws a Go-style message on bad syntax. */
export function compileGoRegexp(pattern: string): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  let source = pattern;
  let flags = 'g';
  const leading = /^\(\?([imsU]+)\)/.exec(source);
  if (leading) {
    for (const f of leading[1]!) if (f !== 'U' && !flags.includes(f)) flags += f;
    source = source.slice(leading[0].length);
  }
  source = source
    .replace(/\(\?P</g, '(?<')
    .replace(/\\z/g, '(?![\\s\\S])')
    .replace(/\\A/g, '(?<![\\s\\S])')
    .replace(/\\([pP])([A-Za-z])/g, '\\$1{$2}')
    .replace(/\[:(\^?)([a-z]+):\]/g, (whole, negated: string, name: string) => {
      const chars = POSIX_CLASSES[name];
      if (!chars) return whole;
      return negated ? `^${chars}` : chars;
    });
  let compiled: RegExp;
  try {
    // Unicode mode matches Go's rune semantics; some legal-in-Go escapes need the legacy mode.
    compiled = new RegExp(source, `${flags}u`);
  } catch {
    try {
      compiled = new RegExp(source, flags);
    } catch (error) {
      const reason =
        error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error);
      throw new Error(`error parsing regexp: ${reason}: \`${pattern}\``);
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, compiled);
  return compiled;
}

/** Go `Regexp.MatchString`: unanchored search. */
export function goRegexpMatch(pattern: string, input: string): boolean {
  const re = compileGoRegexp(pattern);
  re.lastIndex = 0;
  const found = re.test(input);
  re.lastIndex = 0;
  return found;
}

/**
 * Go `Regexp.ReplaceAllString` (template expansion) or `ReplaceAllLiteralString`. Go ignores an
 * empty match right after a previous match, which JS does not, hence the explicit loop.
 */
export function goRegexpReplaceAll(pattern: string, input: string, replacement: string, literal: boolean): string {
  const re = compileGoRegexp(pattern);
  let out = '';
  let copiedUpTo = 0;
  let previousEnd = -1;
  re.lastIndex = 0;
  for (let match = re.exec(input); match !== null; match = re.exec(input)) {
    const start = match.index;
    const end = start + match[0].length;
    if (match[0].length === 0) {
      // Step past the empty match (by a whole code point, like Go's rune-wise advance).
      const cp = input.codePointAt(end);
      re.lastIndex = end + (cp !== undefined && cp > 0xffff ? 2 : 1);
      if (start === previousEnd) continue;
    }
    out += input.slice(copiedUpTo, start) + (literal ? replacement : expandTemplate(replacement, match));
    copiedUpTo = end;
    previousEnd = end;
    if (re.lastIndex > input.length) break;
  }
  re.lastIndex = 0;
  return out + input.slice(copiedUpTo);
}

/** Go `Regexp.Expand`: `$1`, `${1}`, `$name`, `${name}`, `$$`; names take the longest run of word chars. */
function expandTemplate(template: string, match: RegExpExecArray): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== '$' || i + 1 >= template.length) {
      out += c;
      continue;
    }
    const next = template[i + 1];
    if (next === '$') {
      out += '$';
      i++;
      continue;
    }
    let name: string | undefined;
    let consumed = 0;
    if (next === '{') {
      const close = template.indexOf('}', i + 2);
      const inner = close < 0 ? '' : template.slice(i + 2, close);
      if (close >= 0 && /^\w+$/.test(inner)) {
        name = inner;
        consumed = close - i;
      }
    } else {
      const word = /^\w+/.exec(template.slice(i + 1));
      if (word) {
        name = word[0];
        consumed = word[0].length;
      }
    }
    if (name === undefined) {
      out += c; // a malformed reference is copied literally
      continue;
    }
    out += groupValue(match, name);
    i += consumed;
  }
  return out;
}

function groupValue(match: RegExpExecArray, name: string): string {
  if (/^\d+$/.test(name)) return match[Number(name)] ?? '';
  return match.groups?.[name] ?? '';
}
