/**
 * A validate pattern compiled once into a tree of closures that walks a resource as `matchPattern`
 * does: the same key order, anchors, skips, failures, paths, messages and budget steps, with every
 * decision about the pattern itself (map, list or leaf; which anchor; which list rule; the leaf's
 * parsed form) taken at compile time instead of at each node. Patterns whose walk depends on the
 * resource beyond that (metadata wildcard expansion rewrites the pattern per resource) are not
 * compiled: `compilePattern` then returns `matchPattern` itself.
 */
import { type JsonObject, type JsonValue, isObject } from '@edict/foundation';
import { isLeadingAnchor } from './anchor';
import { CONDITIONAL_PREFIX, GLOBAL_PREFIX, NEGATION_PREFIX, failure, isSkip, type Failure } from './failure';
import { compileStringPattern, matchStringPattern, matchValue } from './leaf';
import {
  aggregatedSkip,
  existenceOnNonList,
  existencePatternNotList,
  existencePatternNotMaps,
  matchPattern,
  mismatch,
  nestedArrayTooShort,
  notAMap,
  notAnArray,
  own,
  PatternWalk,
  walkResult,
  type PatternResult,
  type WalkBudget,
} from './match';
import { planFor, type PatternEntry } from './plan';

/** A pattern ready to match resources: what `matchPattern(resource, pattern, budget)` gives. */
export type CompiledPattern = (resource: JsonValue, budget?: WalkBudget) => PatternResult;

/** Checks a resource value against one compiled pattern node; `path` is where the value sits. */
type Check = (resource: JsonValue | undefined, path: string, walk: PatternWalk) => Failure | undefined;
type EntryCheck = (resource: JsonObject, path: string, walk: PatternWalk) => Failure | undefined;
/**
 * A `Check` for a map entry's value, given the map's path and the entry's segment apart: a leaf
 * joins them only to report a mismatch, so a passing walk builds no leaf paths.
 */
type ValueCheck = (
  resource: JsonValue | undefined,
  mapPath: string,
  segment: string,
  walk: PatternWalk,
) => Failure | undefined;

export function compilePattern(pattern: JsonValue): CompiledPattern {
  let check: Check;
  try {
    check = compileElement(pattern);
  } catch (error) {
    if (error instanceof NotCompiled) return (resource, budget) => matchPattern(resource, pattern, budget);
    throw error;
  }
  return (resource, budget) => {
    const walk = new PatternWalk(budget);
    return walkResult(check(resource, '/', walk), walk);
  };
}

/** Thrown while compiling a pattern that the interpreter must walk. */
class NotCompiled extends Error {}

/** `checkElement`: any pattern value. */
function compileElement(pattern: JsonValue): Check {
  if (isObject(pattern)) return compileMap(pattern);
  if (Array.isArray(pattern)) {
    const list = compileList(pattern);
    return (resource, path, walk) => {
      walk.step();
      if (!Array.isArray(resource)) return notAnArray(path);
      return list(resource, path, walk);
    };
  }
  const matches = leafMatcher(pattern);
  // A scalar pattern against an array applies to every element (an empty array passes).
  return (resource, path, walk) => {
    walk.step();
    if (Array.isArray(resource)) {
      for (const item of resource) if (!matches(item)) return mismatch(path, resource, pattern);
      return undefined;
    }
    return matches(resource) ? undefined : mismatch(path, resource, pattern);
  };
}

function leafMatcher(pattern: JsonValue): (value: JsonValue | undefined) => boolean {
  if (typeof pattern === 'string') {
    const leaf = compileStringPattern(pattern);
    return (value) => matchStringPattern(value, leaf);
  }
  return (value) => matchValue(value, pattern);
}

/** `checkObject` then `checkMap`: the plan's entries in its order, with Kyverno's skip rules. */
function compileMap(pattern: JsonObject): Check {
  const plan = planFor(pattern);
  // Wildcard label/annotation keys are expanded against each resource: left to the interpreter.
  if (plan.metadataKey !== undefined) throw new NotCompiled();
  const entries = plan.entries.map(compileEntry);
  const leading = plan.entries.map((entry) => isLeadingAnchor(entry.anchor));
  const tracks = plan.tracked.length > 0;
  return (resource, path, walk) => {
    walk.step();
    if (!isObject(resource)) return notAMap(path, resource);
    if (tracks) walk.record(plan, resource);
    let applied = 0;
    let skipped: Failure[] | undefined;
    for (let i = 0; i < entries.length; i++) {
      const result = entries[i]!(resource, path, walk);
      if (!result) applied++;
      else if (result.kind === 'aggregated-skip') (skipped ??= []).push(result);
      else if (skipped && !isSkip(result) && !leading[i]) return aggregatedSkip(skipped);
      else return result;
    }
    return applied === 0 && skipped ? aggregatedSkip(skipped) : undefined;
  };
}

/** `checkEntry`: one key of a map, by its anchor. */
function compileEntry(entry: PatternEntry): EntryCheck {
  const anchor = entry.anchor;
  if (!anchor || anchor.modifier === '+') return compilePlainKey(entry);
  const key = anchor.key;
  const segment = entry.pathSegment;
  switch (anchor.modifier) {
    case '': {
      const value = compileEntryValue(entry);
      return (resource, path, walk) => {
        const found = own(resource, key);
        if (found === undefined) {
          return failure(
            path + segment,
            `${CONDITIONAL_PREFIX}conditional anchor key doesn't exist in the resource`,
            'conditional',
          );
        }
        const result = value(found, path, segment, walk);
        return result && failure(result.path, CONDITIONAL_PREFIX + result.message, 'conditional');
      };
    }
    case '<': {
      const value = compileEntryValue(entry);
      return (resource, path, walk) => {
        const found = own(resource, key);
        if (found === undefined) return undefined;
        const result = value(found, path, segment, walk);
        return result && failure(result.path, GLOBAL_PREFIX + result.message, 'global');
      };
    }
    case '=': {
      const value = compileEntryValue(entry);
      return (resource, path, walk) => {
        const found = own(resource, key);
        return found === undefined ? undefined : value(found, path, segment, walk);
      };
    }
    case 'X':
      return (resource, path) => {
        if (own(resource, key) === undefined) return undefined;
        const childPath = path + segment;
        return failure(childPath, `${NEGATION_PREFIX}${childPath} is not allowed`, 'negation');
      };
    case '^': {
      const existence = compileExistence(entry.value);
      return (resource, path, walk) => {
        const found = own(resource, key);
        return found === undefined ? undefined : existence(found, path + segment, walk);
      };
    }
  }
}

/** Plain keys (and `+(key)`, which validation treats as a literal key name). */
function compilePlainKey(entry: PatternEntry): EntryCheck {
  const key = entry.rawKey;
  if (entry.value === '*') {
    // `*` only requires the key to hold a non-null value of any type.
    return (resource, path) => {
      const value = own(resource, key);
      return value === undefined || value === null ? failure(path, `${path}/${key} not found`) : undefined;
    };
  }
  const value = compileEntryValue(entry);
  const segment = entry.pathSegment;
  return (resource, path, walk) => value(own(resource, key), path, segment, walk);
}

/** `checkEntryValue`: a string leaf is matched without a step of its own, as the interpreter does. */
function compileEntryValue(entry: PatternEntry): ValueCheck {
  const leaf = entry.leaf;
  if (entry.plan || !leaf) {
    const element = compileElement(entry.value);
    return (resource, mapPath, segment, walk) => element(resource, mapPath + segment, walk);
  }
  const pattern = entry.value;
  return (resource, mapPath, segment) => {
    if (Array.isArray(resource)) {
      for (const item of resource) {
        if (!matchStringPattern(item, leaf)) return mismatch(mapPath + segment, resource, pattern);
      }
      return undefined;
    }
    return matchStringPattern(resource, leaf) ? undefined : mismatch(mapPath + segment, resource, pattern);
  };
}

/** `^(key)`: for each map in the pattern list, at least one element of the resource list must match it. */
function compileExistence(pattern: JsonValue): Check {
  // The pattern's own errors come after the resource's type check, and a non-map item only once
  // the items before it were found: kept in that order.
  const wanted = Array.isArray(pattern) ? pattern.map((item) => (isObject(item) ? compileMap(item) : undefined)) : [];
  return (resource, path, walk) => {
    if (!Array.isArray(resource)) return existenceOnNonList(path, resource!);
    if (!Array.isArray(pattern)) return existencePatternNotList(path, pattern);
    for (const check of wanted) {
      if (!check) return existencePatternNotMaps(path, pattern);
      const found = resource.some((item, i) => check(item, path + i + '/', walk) === undefined);
      if (!found) return failure(path, `existence anchor validation failed at path ${path}`);
    }
    return undefined;
  };
}

/** `checkArray`: a list pattern against a resource list. */
function compileList(
  pattern: readonly JsonValue[],
): (resource: JsonValue[], path: string, walk: PatternWalk) => Failure | undefined {
  if (pattern.length === 0) return (_resource, path) => failure(path, 'pattern Array empty');
  const first = pattern[0]!;
  // Only the first pattern element counts when it is a map (every resource element must match it)
  // or a scalar (every resource element must equal it).
  if (isObject(first)) {
    const element = compileMap(first);
    return (resource, path, walk) => eachElement(resource, resource.length, () => element, path, walk);
  }
  if (!Array.isArray(first)) {
    const element = compileElement(first);
    return (resource, path, walk) => element(resource, path, walk);
  }
  // Nested arrays are matched position by position.
  const elements = pattern.map(compileElement);
  return (resource, path, walk) => {
    if (resource.length < pattern.length) return nestedArrayTooShort(resource, pattern);
    return eachElement(resource, pattern.length, (i) => elements[i]!, path, walk);
  };
}

/**
 * `checkEachElement`: the first `count` elements, each against its check. An element whose anchors
 * say "does not apply" is skipped; the list fails on the first real failure, and is itself skipped
 * only when every element was skipped.
 */
function eachElement(
  resource: readonly JsonValue[],
  count: number,
  checkAt: (index: number) => Check,
  path: string,
  walk: PatternWalk,
): Failure | undefined {
  let applied = 0;
  let skipped: Failure[] | undefined;
  for (let i = 0; i < count; i++) {
    const result = checkAt(i)(resource[i], path + i + '/', walk);
    if (!result) applied++;
    else if (isSkip(result)) (skipped ??= []).push(result);
    else return result;
  }
  return applied === 0 && skipped ? aggregatedSkip(skipped) : undefined;
}
