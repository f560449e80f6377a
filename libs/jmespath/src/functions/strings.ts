import { type JsonValue, compareCodePoints } from '@edict/foundation';
import { functionError } from '../errors';
import { activeBudget, type FunctionDefinition } from '../runtime';
import { num, str } from './signatures';

/** Go's per-rune case mapping: keeps characters whose JS mapping is not a single code point. */
function mapRunes(s: string, map: (c: string) => string): string {
  let out = '';
  for (const c of s) {
    const mapped = map(c);
    out += [...mapped].length === 1 ? mapped : c;
  }
  return out;
}

const toUpper = (s: string) => mapRunes(s, (c) => c.toUpperCase());
const toLower = (s: string) => mapRunes(s, (c) => c.toLowerCase());

/** Go `strings.EqualFold`: rune-by-rune simple case folding. */
export function equalFold(a: string, b: string): boolean {
  const left = [...a];
  const right = [...b];
  if (left.length !== right.length) return false;
  return left.every((c, i) => {
    const d = right[i]!;
    return c === d || toLower(c) === toLower(d) || toUpper(c) === toUpper(d);
  });
}

/** Go `strings.Replace`: `n < 0` replaces all; an empty `old` inserts between runes. */
export function goReplace(s: string, old: string, replacement: string, n: number): string {
  if (n === 0 || old === replacement) return s;
  if (old === '') {
    const runes = [...s];
    let out = '';
    let done = 0;
    for (let i = 0; i <= runes.length; i++) {
      if (n < 0 || done < n) {
        out += replacement;
        done++;
      }
      if (i < runes.length) out += runes[i];
    }
    return out;
  }
  let out = '';
  let from = 0;
  let done = 0;
  while (n < 0 || done < n) {
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + replacement;
    from = at + old.length;
    done++;
  }
  return out + s.slice(from);
}

/** The length of goReplace's result, counted before building it (an empty `old` multiplies). */
function replacedLength(s: string, old: string, replacement: string, n: number): number {
  if (n === 0 || old === replacement) return s.length;
  let count = 0;
  if (old === '') {
    for (const _ of s) if (n < 0 || count < n) count++;
    if (n < 0 || count < n) count++;
  } else {
    for (let at = s.indexOf(old); at >= 0 && (n < 0 || count < n); at = s.indexOf(old, at + old.length)) count++;
  }
  return s.length + count * (replacement.length - old.length);
}

/** goReplace, once its result is known to fit the evaluation's result size limit. */
function boundedReplace(fn: string, s: string, old: string, replacement: string, n: number): string {
  activeBudget().checkLength(replacedLength(s, old, replacement, n), fn);
  return goReplace(s, old, replacement, n);
}

/** Go `strings.Trim`: drops leading/trailing runes contained in the cutset. */
export function goTrim(s: string, cutset: string): string {
  if (s === '' || cutset === '') return s;
  const cut = new Set(cutset);
  const runes = [...s];
  let start = 0;
  let end = runes.length;
  while (start < end && cut.has(runes[start]!)) start++;
  while (end > start && cut.has(runes[end - 1]!)) end--;
  return runes.slice(start, end).join('');
}

/** Go `strings.Split`: an empty separator splits into runes; an empty input gives [""]. */
export function goSplit(s: string, sep: string): string[] {
  if (sep === '') return [...s];
  return s.split(sep);
}

const s = (args: JsonValue[], i: number) => args[i] as string;

export const stringFunctions: FunctionDefinition[] = [
  {
    name: 'compare',
    returns: ['number'],
    note: 'compares two strings lexicographically',
    signature: [str, str],
    fn: (a) => compareCodePoints(s(a, 0), s(a, 1)),
  },
  {
    name: 'equal_fold',
    returns: ['bool'],
    note: 'allows comparing two strings for equivalency where the only differences are letter cases',
    signature: [str, str],
    fn: (a) => equalFold(s(a, 0), s(a, 1)),
  },
  {
    name: 'replace',
    returns: ['string'],
    note: 'replaces a specified number of instances of the source string with the replacement string in a parent ',
    signature: [str, str, str, num],
    // Go converts the count with int(float64): truncation toward zero.
    fn: (a) => boundedReplace('replace', s(a, 0), s(a, 1), s(a, 2), Math.trunc(a[3] as number)),
  },
  {
    name: 'replace_all',
    returns: ['string'],
    note: 'replace all instances of one string with another in an overall parent string',
    signature: [str, str, str],
    fn: (a) => boundedReplace('replace_all', s(a, 0), s(a, 1), s(a, 2), -1),
  },
  {
    name: 'to_upper',
    returns: ['string'],
    note: 'takes in a string and outputs the same string with all upper-case letters',
    signature: [str],
    fn: (a) => toUpper(s(a, 0)),
  },
  {
    name: 'to_lower',
    returns: ['string'],
    note: 'takes in a string and outputs the same string with all lower-case letters',
    signature: [str],
    fn: (a) => toLower(s(a, 0)),
  },
  {
    name: 'trim',
    returns: ['string'],
    note: 'trims both ends of the source string by characters appearing in the second string',
    signature: [str, str],
    fn: (a) => goTrim(s(a, 0), s(a, 1)),
  },
  {
    name: 'trim_prefix',
    returns: ['string'],
    note: 'trims the second string prefix from the first string if the first string starts with the prefix',
    signature: [str, str],
    fn: (a) => (s(a, 0).startsWith(s(a, 1)) ? s(a, 0).slice(s(a, 1).length) : s(a, 0)),
  },
  {
    name: 'split',
    returns: ['array[string]'],
    note: 'splits the first string when the second string is found and converts it into an array ',
    signature: [str, str],
    fn: (a) => goSplit(s(a, 0), s(a, 1)),
  },
  {
    name: 'to_boolean',
    returns: ['bool'],
    note: "It returns true or false for any string, such as 'True', 'TruE', 'False', 'FAlse', 'faLSE', etc.",
    signature: [str],
    fn: (a) => {
      const lowered = s(a, 0).toLowerCase();
      if (lowered === 'true') return true;
      if (lowered === 'false') return false;
      throw functionError('to_boolean', `lowercase argument must be 'true' or 'false' (provided: '${s(a, 0)}')`);
    },
  },
  {
    name: 'truncate',
    returns: ['string'],
    note: 'length argument must be enclosed in backticks; ex. "{{request.object.metadata.name | truncate(@, `9`)}}"',
    signature: [str, num],
    fn: (a) => {
      // Negative lengths count as zero; the cut is per rune, not per UTF-16 unit.
      const length = Math.trunc(Math.max(0, a[1] as number));
      const runes = [...s(a, 0)];
      return runes.length <= length ? s(a, 0) : runes.slice(0, length).join('');
    },
  },
];
