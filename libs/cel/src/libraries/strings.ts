import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';
import { formatString } from './string-format';
import { replaced } from './replaced';
import { chargeString, checkListLength, checkStringLength, codePoints } from './runtime';
import { namespaceFunction } from './namespace';

/**
 * cel-go's strings extension at the version Kubernetes and Kyverno enable (2): charAt, indexOf and
 * lastIndexOf (with offsets), lowerAscii, upperAscii, replace (with a count), split (with a
 * limit), substring, trim, join (cel-js's own), format and strings.quote; and reverse. Indexes
 * count code points, errors are cel-go's.
 */
export function registerStrings(env: Environment): void {
  const fn = (signature: string, handler: (...args: never[]) => unknown): void => {
    env.registerFunction(signature, handler as (...args: unknown[]) => unknown);
  };
  fn('string.charAt(int): string', (text: string, index: bigint) => {
    chargeString(text.length);
    const chars = codePoints(text);
    if (index < 0n || index > BigInt(chars.length)) throw celError(`index out of range: ${index}`);
    return chars[Number(index)] ?? '';
  });
  fn(`string.${replaced('indexOf')}(string): int`, (text: string, search: string) => indexOf(text, search));
  fn(`string.${replaced('indexOf')}(string, int): int`, (text: string, search: string, offset: bigint) =>
    indexOf(text, search, offset),
  );
  fn(`string.${replaced('lastIndexOf')}(string): int`, (text: string, search: string) => lastIndexOf(text, search));
  fn(`string.${replaced('lastIndexOf')}(string, int): int`, (text: string, search: string, offset: bigint) =>
    lastIndexOf(text, search, offset),
  );
  fn(`string.${replaced('lowerAscii')}(): string`, (text: string) => {
    chargeString(text.length);
    return text.replace(/[A-Z]+/g, (ascii) => ascii.toLowerCase());
  });
  fn(`string.${replaced('upperAscii')}(): string`, (text: string) => {
    chargeString(text.length);
    return text.replace(/[a-z]+/g, (ascii) => ascii.toUpperCase());
  });
  fn(`string.${replaced('trim')}(): string`, (text: string) => {
    chargeString(text.length);
    return text.replace(GO_SPACE_AT_ENDS, '');
  });
  fn(`string.${replaced('substring')}(int): string`, (text: string, start: bigint) => substring(text, start));
  fn(`string.${replaced('substring')}(int, int): string`, (text: string, start: bigint, end: bigint) =>
    substring(text, start, end),
  );
  fn(`string.${replaced('split')}(string): list<string>`, (text: string, separator: string) =>
    split(text, separator, -1n),
  );
  fn(`string.${replaced('split')}(string, int): list<string>`, (text: string, separator: string, limit: bigint) =>
    split(text, separator, limit),
  );
  fn('string.replace(string, string): string', (text: string, from: string, to: string) =>
    replace(text, from, to, -1n),
  );
  fn('string.replace(string, string, int): string', (text: string, from: string, to: string, count: bigint) =>
    replace(text, from, to, count),
  );
  fn('string.reverse(): string', (text: string) => {
    chargeString(text.length);
    return codePoints(text).reverse().join('');
  });
  fn('string.format(list): string', (text: string, args: unknown[]) => formatString(text, args));
  namespaceFunction(env, 'strings.quote(string): string', (text: string) => quote(text));
}

/** Go's unicode.IsSpace, which strings.TrimSpace trims (not JavaScript's \s: no U+FEFF, plus U+0085). */
const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const GO_SPACE_AT_ENDS = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, 'g');

/** The UTF-16 offset of the code point at `index`. */
function utf16Offset(chars: readonly string[], index: number): number {
  let offset = 0;
  for (let i = 0; i < index; i++) offset += chars[i]!.length;
  return offset;
}

/** The code point index of a UTF-16 offset. */
function codePointIndex(text: string, offset: number): bigint {
  return BigInt(codePoints(text.slice(0, offset)).length);
}

function indexOf(text: string, search: string, offset?: bigint): bigint {
  chargeString(text.length, search.length);
  if (search === '') return offset ?? 0n;
  const chars = codePoints(text);
  if (offset === undefined) {
    if (codePoints(search).length > chars.length) return -1n;
    offset = 0n;
  }
  if (offset < 0n || offset >= BigInt(chars.length)) throw celError(`index out of range: ${offset}`);
  const at = text.indexOf(search, utf16Offset(chars, Number(offset)));
  return at < 0 ? -1n : codePointIndex(text, at);
}

function lastIndexOf(text: string, search: string, offset?: bigint): bigint {
  chargeString(text.length, search.length);
  const chars = codePoints(text);
  if (search === '') return offset ?? BigInt(chars.length);
  const searchLength = codePoints(search).length;
  if (offset === undefined) {
    if (searchLength > chars.length) return -1n;
    offset = BigInt(chars.length - 1);
  }
  if (offset < 0n || offset >= BigInt(chars.length)) throw celError(`index out of range: ${offset}`);
  const last = Math.min(Number(offset), chars.length - searchLength);
  if (last < 0) return -1n;
  const at = text.lastIndexOf(search, utf16Offset(chars, last));
  return at < 0 ? -1n : codePointIndex(text, at);
}

function substring(text: string, start: bigint, end?: bigint): string {
  chargeString(text.length);
  const chars = codePoints(text);
  const length = BigInt(chars.length);
  if (end !== undefined && start > end) throw celError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > length) throw celError(`index out of range: ${start}`);
  if (end !== undefined && (end < 0n || end > length)) throw celError(`index out of range: ${end}`);
  return chars.slice(Number(start), end === undefined ? undefined : Number(end)).join('');
}

/** Go's strings.SplitN: at most `limit` parts (all when negative, none when 0); '' splits code points. */
function split(text: string, separator: string, limit: bigint): string[] {
  chargeString(text.length, separator.length);
  if (limit === 0n) return [];
  const parts = separator === '' ? codePoints(text) : text.split(separator);
  if (limit < 0n || BigInt(parts.length) <= limit) {
    checkListLength(parts.length);
    return parts;
  }
  const kept = parts.slice(0, Number(limit) - 1);
  kept.push(parts.slice(Number(limit) - 1).join(separator));
  return kept;
}

/** Go's strings.Replace: at most `count` replacements (all when negative). */
function replace(text: string, from: string, to: string, count: bigint): string {
  chargeString(text.length, from.length, to.length);
  const all = count < 0n;
  let left = count;
  let out = '';
  if (from === '') {
    // An empty pattern matches before every code point and at the end.
    for (const char of [...codePoints(text), '']) {
      if (all || left-- > 0n) out += to;
      out += char;
      checkStringLength(out.length);
    }
    return out;
  }
  let rest = text;
  while (all || left-- > 0n) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    checkStringLength(out.length);
    rest = rest.slice(at + from.length);
  }
  return out + rest;
}

/** cel-go's strings.quote: a double-quoted string with CEL's escapes. */
function quote(text: string): string {
  chargeString(text.length);
  let out = '"';
  for (const char of text) {
    out += QUOTE_ESCAPES[char] ?? (isLoneSurrogate(char) ? '\ufffd' : char);
  }
  checkStringLength(out.length + 1);
  return `${out}"`;
}

const QUOTE_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

function isLoneSurrogate(char: string): boolean {
  const code = char.charCodeAt(0);
  return char.length === 1 && code >= 0xd800 && code <= 0xdfff;
}
