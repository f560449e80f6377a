/**
 * How Kyverno's pattern leaves turn resource values into text before comparing them, and Go's
 * `strings.TrimSpace` / `strings.Trim(s, " ")` they apply (`strconv.ParseFloat` is `goParseFloat`
 * in values/go-float; Go's number text is in go/).
 */
import { type JsonValue, goFloatE, goFloatF, goIntText, isInt64 } from '@edict/foundation';

/** How Kyverno turns a resource value into text before parsing it as a duration or quantity. */
export function numberText(value: JsonValue | undefined): string | undefined {
  if (value === null || value === undefined) return '0';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return isInt64(value) ? goIntText(value) : goFloatF(value);
  return undefined;
}

/** How Kyverno stringifies a resource value for wildcard comparison; `undefined` when it refuses. */
export function comparableText(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return isInt64(value) ? goIntText(value) : goFloatE(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

/** Characters Go's `unicode.IsSpace` accepts (JS `trim` differs on U+0085 and U+FEFF). */
function isGoSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** Go `strings.TrimSpace`. */
export function goTrimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** Go `strings.Trim(s, " ")`: only the ASCII space. */
export function trimSpaces(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) === 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) === 0x20) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}
