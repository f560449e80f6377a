import { goJsonNumber } from './floats';
import { compareCodePoints } from './strings';

/**
 * `json.Marshal` of a decoded value, the text Kyverno interpolates, hashes and prints: map keys in
 * Go's byte order, no spaces, and HTML-safe strings (`<`, `>`, `&`, U+2028 and U+2029 written as
 * `\u003c`...). Undefined fields are left out and undefined or non-finite values written as `null`,
 * so JavaScript objects read back from JSON give what Go gives. It runs on every admitted object
 * (the reports' resource hash), hence the hand-written scans and sorts and the cache of quoted keys.
 */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return goJsonString(value);
    case 'number':
      return Number.isFinite(value) ? goJsonNumber(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return Array.isArray(value) ? jsonArray(value) : jsonObject(value as Record<string, unknown>);
    default:
      return 'null';
  }
}

function jsonArray(items: readonly unknown[]): string {
  if (items.length === 0) return '[]';
  let text = '[' + goJson(items[0]);
  for (let index = 1; index < items.length; index++) text += ',' + goJson(items[index]);
  return text + ']';
}

/**
 * Fields `goJsonWithout` leaves out: `true` drops the field; nested omissions apply to the field's
 * value when it is an object (not an array).
 */
export type GoJsonOmissions = ReadonlyMap<string, GoJsonOmissions | true>;

/**
 * `goJson` of an object as if the fields in `omit` were absent, without copying it: for hashes over
 * most of a resource (Kyverno's resource hash leaves out metadata, status, spec.nodeName...).
 */
export function goJsonWithout(object: Record<string, unknown>, omit: GoJsonOmissions): string {
  return jsonObject(object, omit);
}

function jsonObject(object: Record<string, unknown>, omit?: GoJsonOmissions): string {
  const keys = Object.keys(object);
  sortKeys(keys);
  let text = '{';
  let first = true;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const item = object[key];
    if (item === undefined) continue;
    const omitted = omit?.get(key);
    if (omitted === true) continue;
    if (omitted !== undefined && item !== null && typeof item === 'object' && !Array.isArray(item)) {
      text += (first ? '' : ',') + quotedKey(key) + jsonObject(item as Record<string, unknown>, omitted);
      first = false;
      continue;
    }
    text += (first ? '' : ',') + quotedKey(key) + goJson(item);
    first = false;
  }
  return text + '}';
}

/**
 * Go's order: code point order, which JavaScript's `<` gives unless a key holds a surrogate. Objects
 * have few keys, so an insertion sort with `<` beats the native sort (which converts and compares
 * through a generic path) and is linear on keys already in order.
 */
function sortKeys(keys: string[]): void {
  for (let index = 0; index < keys.length; index++) {
    if (hasSurrogate(keys[index] as string)) {
      keys.sort(compareCodePoints);
      return;
    }
  }
  if (keys.length > 32) {
    keys.sort();
    return;
  }
  for (let index = 1; index < keys.length; index++) {
    const key = keys[index] as string;
    let place = index - 1;
    while (place >= 0 && (keys[place] as string) > key) {
      keys[place + 1] = keys[place] as string;
      place--;
    }
    keys[place + 1] = key;
  }
}

function hasSurrogate(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdfff) return true;
  }
  return false;
}

/**
 * `"key":` for the keys resources repeat (names, containers, image...): cached so each is scanned
 * and quoted once per process. Bounded: emptied when full, since requests choose keys too.
 */
const QUOTED_KEYS = new Map<string, string>();
const QUOTED_KEYS_LIMIT = 4096;

function quotedKey(key: string): string {
  let quoted = QUOTED_KEYS.get(key);
  if (quoted === undefined) {
    if (key.length > 64) return goJsonString(key) + ':';
    if (QUOTED_KEYS.size >= QUOTED_KEYS_LIMIT) QUOTED_KEYS.clear();
    quoted = goJsonString(key) + ':';
    QUOTED_KEYS.set(key, quoted);
  }
  return quoted;
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

/** A JSON string as Go writes it: JSON.stringify's escapes (Go's too since 1.22), plus the HTML-safe ones. */
function goJsonString(text: string): string {
  if (!needsEscaping(text)) return '"' + text + '"';
  return JSON.stringify(text).replace(HTML_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Anything JSON or Go would escape: quotes, backslash, controls, HTML characters, lone surrogates. */
function needsEscaping(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x3f) {
      if (code < 0x20 || code === 0x22 || code === 0x26 || code === 0x3c || code === 0x3e) return true;
    } else if (code === 0x5c || (code >= 0x2028 && (code <= 0x2029 || (code >= 0xd800 && code <= 0xdfff)))) {
      return true;
    }
  }
  return false;
}
