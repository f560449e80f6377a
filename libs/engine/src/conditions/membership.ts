import { type JsonValue, hasWildcard, wildcardMatch, goValueText } from '@edict/foundation';
import { decodeStringList } from './string-list';
import { compileStringPattern, isRangePattern, matchStringPattern } from '../pattern/leaf';

/**
 * The In family. Keys and values are compared as text (`fmt.Sprint`), so 1 In ["1"] holds.
 * A value may be a list, a single string (a wildcard pattern, a range such as "1-10", or a
 * JSON-encoded string list as stored in ConfigMaps). Where Kyverno reports a type mismatch
 * ("expected type []string") the operator answers false, for the Not* forms too.
 */

const INVALID = 'invalid' as const;
type Lookup = boolean | typeof INVALID;

type Keys = { single: string } | { set: string[] } | undefined;

function keysOf(key: JsonValue, allowBool: boolean): Keys {
  if (typeof key === 'string') return { single: key };
  if (typeof key === 'number' || (allowBool && typeof key === 'boolean')) return { single: goValueText(key) };
  if (Array.isArray(key)) return { set: key.map((item) => goValueText(item)) };
  return undefined;
}

/** Wildcards count on either side for list elements in the newer operators. */
function matchesEitherWay(a: string, b: string): boolean {
  return wildcardMatch(a, b) || wildcardMatch(b, a);
}

// ---- In / NotIn (deprecated; exact set semantics for list keys) --------------------------------

export function evaluateIn(key: JsonValue, value: JsonValue, negate: boolean): boolean {
  // Kyverno asserts list keys hold strings (a non-string element would panic); treat as false.
  if (Array.isArray(key) && key.some((k) => typeof k !== 'string')) return false;
  const keys = keysOf(key, false);
  if (!keys) return false;
  if ('single' in keys) {
    const found = legacyKeyIn(keys.single, value);
    return found === INVALID ? false : negate !== found;
  }
  const result = legacySetIn(keys.set, value, negate);
  return result === INVALID ? false : result;
}

function legacyKeyIn(key: string, value: JsonValue): Lookup {
  if (Array.isArray(value)) return value.some((v) => matchesEitherWay(goValueText(v), key));
  if (typeof value !== 'string') return INVALID;
  if (wildcardMatch(value, key)) return true;
  const decoded = decodeStringList(value);
  return decoded.kind === 'list' ? decoded.items.includes(key) : INVALID;
}

/** In: every key is in the list; NotIn: some key is not. Exact matches, no wildcards. */
function legacySetIn(keys: string[], value: JsonValue, negate: boolean): Lookup {
  let items: readonly string[];
  if (Array.isArray(value)) {
    if (value.some((v) => typeof v !== 'string')) return INVALID;
    items = value as string[];
  } else if (typeof value === 'string') {
    // Kyverno short-circuits a one-element key equal to the value to true, even for NotIn.
    if (keys.length === 1 && keys[0] === value) return true;
    const decoded = decodeStringList(value);
    if (decoded.kind !== 'list') return INVALID;
    items = decoded.items;
  } else {
    return INVALID;
  }
  const set = new Set(items);
  return negate ? keys.some((k) => !set.has(k)) : keys.every((k) => set.has(k));
}

// ---- AnyIn / AllIn / AnyNotIn / AllNotIn -------------------------------------------------------

export type Quantifier = 'any' | 'all';

export function evaluateQuantifiedIn(
  key: JsonValue,
  value: JsonValue,
  quantifier: Quantifier,
  negate: boolean,
): boolean {
  const keys = keysOf(key, true);
  if (!keys) return false;
  if ('single' in keys) {
    const found = keyIn(keys.single, value);
    return found === INVALID ? false : negate !== found;
  }
  const result = setIn(keys.set, value, quantifier, negate);
  return result === INVALID ? false : result;
}

function keyIn(key: string, value: JsonValue): Lookup {
  if (Array.isArray(value)) return value.some((v) => matchesEitherWay(goValueText(v), key));
  if (typeof value !== 'string') return INVALID;
  if (wildcardMatch(value, key)) return true;
  if (isRangePattern(value)) return matchesStringPattern(key, value);
  const items = listFromString(value);
  return items === INVALID ? INVALID : items.includes(key);
}

/** A string value is a JSON list if it parses as JSON; otherwise it stands for itself. */
function listFromString(value: string): readonly string[] | typeof INVALID {
  const decoded = decodeStringList(value);
  if (decoded.kind === 'notJson') return [value];
  return decoded.kind === 'list' ? decoded.items : INVALID;
}

function setIn(keys: string[], value: JsonValue, quantifier: Quantifier, negate: boolean): Lookup {
  let items: readonly string[];
  if (Array.isArray(value)) {
    items = value.map((item) => goValueText(item));
  } else if (typeof value === 'number') {
    items = [goValueText(value)];
  } else if (typeof value === 'string') {
    if (keys.length === 1 && keys[0] === value) return !negate;
    if (isRangePattern(value)) return rangeSetIn(keys, value, quantifier, negate);
    const parsed = listFromString(value);
    if (parsed === INVALID) return INVALID;
    items = parsed;
  } else {
    return INVALID;
  }
  const found = membership(items);
  if (quantifier === 'any') return negate ? keys.some((k) => !found(k)) : keys.some(found);
  return negate ? !keys.some(found) : keys.every(found);
}

/**
 * `matchesEitherWay` against any of `items`, with each item's wildcards looked for once rather than
 * once per key: a key and an item without wildcards match only when equal.
 */
function membership(items: readonly string[]): (key: string) => boolean {
  const wild = items.map(hasWildcard);
  return (key) => {
    const keyWild = hasWildcard(key);
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
      if (wild[index] ? matchesEitherWay(key, item) : keyWild ? wildcardMatch(key, item) : key === item) return true;
    }
    return false;
  };
}

/** Kyverno hands range values to its validate-pattern matcher (`pattern.Validate`). */
function matchesStringPattern(value: string, pattern: string): boolean {
  return matchStringPattern(value, compileStringPattern(pattern));
}

function rangeSetIn(keys: string[], range: string, quantifier: Quantifier, negate: boolean): boolean {
  if (quantifier === 'any') {
    // Kyverno turns "a-b" into the outside-range form "a!-b" to test AnyNotIn.
    const pattern = negate ? range.replace('-', '!-') : range;
    return keys.some((k) => matchesStringPattern(k, pattern));
  }
  const inRange = (k: string) => matchesStringPattern(k, range);
  return negate ? !keys.some(inRange) : keys.every(inRange);
}
