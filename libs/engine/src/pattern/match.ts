/**
 * Kyverno's validate `pattern` check (`validate.MatchPattern`): walks the pattern and the resource
 * together, applying anchors, and reports the first divergence with Kyverno's path and wording.
 */
import { type JsonObject, type JsonValue, isObject, goTypeName, goValueText } from '@edict/foundation';
import { isLeadingAnchor } from './anchor';
import { CONDITIONAL_PREFIX, GLOBAL_PREFIX, NEGATION_PREFIX, failure, isSkip, type Failure } from './failure';
import { matchStringPattern, matchValue } from './leaf';
import { expandMetadataWildcards } from './metadata-wildcards';
import { planFor, type MapPlan, type PatternEntry } from './plan';

export type PatternResult =
  | { status: 'pass' }
  /**
   * `path` is where the resource diverged ("/spec/containers/0/image/"). An empty path is Kyverno's
   * "execution error" case (rule status `error`, message `... execution error: <message>`): it
   * happens when a condition/existence anchor key never occurred in the resource, or on an
   * array-length mismatch between nested arrays.
   */
  | { status: 'fail'; path: string; message: string }
  /**
   * A conditional or global anchor did not hold: the rule does not apply. `message` is Kyverno's
   * skip message; `path` is where the (first) anchor mismatch happened (Kyverno itself reports none).
   */
  | { status: 'skip'; path: string; message: string };

export const PASS: PatternResult = Object.freeze({ status: 'pass' });

/** A cancellation point the walk calls once per node (the evaluation's deadline). */
export interface WalkBudget {
  step(): void;
}

/**
 * The state of one pattern walk. It remembers, per condition/existence anchor key (as written),
 * whether any resource map checked against it had the key (Kyverno turns a failure into an
 * execution error when one never did), and counts the walk's steps against its budget.
 */
export class PatternWalk {
  private seen: Map<string, boolean> | undefined;

  constructor(private readonly budget?: WalkBudget) {}

  step(): void {
    this.budget?.step();
  }

  record(plan: MapPlan, resource: JsonObject): void {
    if (plan.tracked.length === 0) return;
    this.seen ??= new Map();
    for (const entry of plan.tracked) {
      if (this.seen.get(entry.rawKey) === true) continue;
      this.seen.set(entry.rawKey, own(resource, entry.anchor!.key) !== undefined);
    }
  }

  someNeverSeen(): boolean {
    if (!this.seen) return false;
    for (const seen of this.seen.values()) if (!seen) return true;
    return false;
  }
}

/** Matches a resource against a validate pattern (variables already substituted). */
export function matchPattern(resource: JsonValue, pattern: JsonValue, budget?: WalkBudget): PatternResult {
  const walk = new PatternWalk(budget);
  return walkResult(checkElement(resource, pattern, '/', walk), walk);
}

/** What a walk's first divergence (if any) means for the pattern as a whole. */
export function walkResult(result: Failure | undefined, walk: PatternWalk): PatternResult {
  if (!result) return PASS;
  if (isSkip(result)) return { status: 'skip', path: result.path, message: result.message };
  if (result.kind !== 'negation' && walk.someNeverSeen()) return { status: 'fail', path: '', message: result.message };
  return { status: 'fail', path: result.path, message: result.message };
}

/**
 * A resource map's own value for `key` (`undefined` when absent). JSON never holds functions, so a
 * function read through the prototype (`constructor`, `toString`) means "absent"; only
 * `__proto__` needs the slower own-property check.
 */
export function own(map: JsonObject, key: string): JsonValue | undefined {
  if (key === '__proto__') return Object.hasOwn(map, key) ? map[key] : undefined;
  const value: unknown = map[key];
  return typeof value === 'function' ? undefined : (value as JsonValue | undefined);
}

export function mismatch(path: string, resource: JsonValue | undefined, pattern: JsonValue): Failure {
  return failure(
    path,
    `resource value '${goValueText(resource, 'resource')}' does not match '${goValueText(pattern, 'decoded')}' at path ${path}`,
  );
}

export function notAnArray(path: string): Failure {
  return failure(
    path,
    `validation rule failed at path ${path}, resource does not satisfy the expected overlay pattern`,
  );
}

export function notAMap(path: string, resource: JsonValue | undefined): Failure {
  return failure(
    path,
    `pattern and resource have different structures. Path: ${path}. Expected map[string]interface {}, found ${goTypeName(resource, 'resource')}`,
  );
}

export function existenceOnNonList(path: string, resource: JsonValue): Failure {
  return failure(
    path,
    `invalid resource type ${goTypeName(resource, 'resource')}: Existence ^ () anchor can be used only on list/array type resource`,
  );
}

export function existencePatternNotList(path: string, pattern: JsonValue): Failure {
  return failure(
    path,
    `invalid pattern type ${goTypeName(pattern, 'decoded')}: Pattern has to be of list to compare against resource`,
  );
}

export function existencePatternNotMaps(path: string, pattern: JsonValue): Failure {
  return failure(
    path,
    `invalid pattern type ${goTypeName(pattern, 'decoded')}: Pattern has to be of type map to compare against items in resource`,
  );
}

export function nestedArrayTooShort(resource: readonly JsonValue[], pattern: readonly JsonValue[]): Failure {
  return failure(
    '',
    `validate Array failed, array length mismatch, resource Array len is ${resource.length} and pattern Array len is ${pattern.length}`,
  );
}

function checkElement(
  resource: JsonValue | undefined,
  pattern: JsonValue,
  path: string,
  walk: PatternWalk,
): Failure | undefined {
  if (isObject(pattern)) return checkObject(resource, pattern, planFor(pattern), path, walk);
  walk.step();
  if (Array.isArray(pattern)) {
    if (!Array.isArray(resource)) return notAnArray(path);
    return checkArray(resource, pattern, path, walk);
  }
  // A scalar pattern against an array applies to every element (an empty array passes).
  if (Array.isArray(resource)) {
    for (const item of resource) if (!matchValue(item, pattern)) return mismatch(path, resource, pattern);
    return undefined;
  }
  return matchValue(resource, pattern) ? undefined : mismatch(path, resource, pattern);
}

/** `checkElement` for a map pattern whose plan the caller has at hand. */
function checkObject(
  resource: JsonValue | undefined,
  pattern: JsonObject,
  plan: MapPlan,
  path: string,
  walk: PatternWalk,
): Failure | undefined {
  walk.step();
  if (!isObject(resource)) return notAMap(path, resource);
  walk.record(plan, resource);
  const expanded = expandMetadataWildcards(pattern, plan, resource);
  return checkMap(resource, expanded === pattern ? plan : planFor(expanded), path, walk);
}

/**
 * Anchors first, then the other keys (see `plan.ts`). Any failure stops the walk, except an
 * aggregated skip (an array whose elements were all skipped): Kyverno sets it aside and goes on,
 * so the map passes if another entry applied, and is itself skipped if none did. A skip set aside
 * outranks a failure found after it at a plain key (Kyverno 1.12.2+): the map is then skipped, not
 * failed. Since keys holding anchors are visited first, a container whose conditional part does not
 * apply is skipped even when its other fields would fail. A failure at an anchor key (Kyverno's
 * first phase) still wins over a skip set aside before it: a pod whose containers are all skipped
 * fails on a failing `=(initContainers)` (kyverno#8731).
 */
function checkMap(resource: JsonObject, plan: MapPlan, path: string, walk: PatternWalk): Failure | undefined {
  let applied = 0;
  let skipped: Failure[] | undefined;
  for (const entry of plan.entries) {
    const result = checkEntry(resource, entry, path, walk);
    if (!result) applied++;
    else if (result.kind === 'aggregated-skip') (skipped ??= []).push(result);
    else if (skipped && !isSkip(result) && !isLeadingAnchor(entry.anchor)) return aggregatedSkip(skipped);
    else return result;
  }
  return applied === 0 && skipped ? aggregatedSkip(skipped) : undefined;
}

/** Kyverno joins the reasons; the path kept is where the first underlying anchor mismatch happened. */
export function aggregatedSkip(skipped: readonly Failure[]): Failure {
  const message = skipped.length === 1 ? skipped[0]!.message : skipped.map((s) => s.message).join('; ');
  return failure(skipped[0]!.path, message, 'aggregated-skip');
}

function checkEntry(resource: JsonObject, entry: PatternEntry, path: string, walk: PatternWalk): Failure | undefined {
  const anchor = entry.anchor;
  if (!anchor || anchor.modifier === '+') return checkPlainKey(resource, entry, path, walk);
  const childPath = path + entry.pathSegment;
  const value = own(resource, anchor.key);
  const present = value !== undefined;
  switch (anchor.modifier) {
    case '': {
      if (!present)
        return failure(
          childPath,
          `${CONDITIONAL_PREFIX}conditional anchor key doesn't exist in the resource`,
          'conditional',
        );
      const result = checkEntryValue(value, entry, childPath, walk);
      return result && failure(result.path, CONDITIONAL_PREFIX + result.message, 'conditional');
    }
    case '<': {
      if (!present) return undefined;
      const result = checkEntryValue(value, entry, childPath, walk);
      return result && failure(result.path, GLOBAL_PREFIX + result.message, 'global');
    }
    case '=':
      return present ? checkEntryValue(value, entry, childPath, walk) : undefined;
    case 'X':
      return present ? failure(childPath, `${NEGATION_PREFIX}${childPath} is not allowed`, 'negation') : undefined;
    case '^':
      return present ? checkExistence(value!, entry.value, childPath, walk) : undefined;
  }
}

/** Plain keys (and `+(key)`, which validation treats as a literal key name). */
function checkPlainKey(
  resource: JsonObject,
  entry: PatternEntry,
  path: string,
  walk: PatternWalk,
): Failure | undefined {
  const value = own(resource, entry.rawKey);
  if (entry.value === '*') {
    // `*` only requires the key to hold a non-null value of any type.
    return value === undefined || value === null ? failure(path, `${path}/${entry.rawKey} not found`) : undefined;
  }
  return checkEntryValue(value, entry, path + entry.pathSegment, walk);
}

/** Like `checkElement`, using the plan's compiled form of a string pattern. */
function checkEntryValue(
  resource: JsonValue | undefined,
  entry: PatternEntry,
  path: string,
  walk: PatternWalk,
): Failure | undefined {
  const leaf = entry.leaf;
  if (entry.plan) return checkObject(resource, entry.value as JsonObject, entry.plan, path, walk);
  if (!leaf) return checkElement(resource, entry.value, path, walk);
  if (Array.isArray(resource)) {
    for (const item of resource) if (!matchStringPattern(item, leaf)) return mismatch(path, resource, entry.value);
    return undefined;
  }
  return matchStringPattern(resource, leaf) ? undefined : mismatch(path, resource, entry.value);
}

/** `^(key)`: for each map in the pattern list, at least one element of the resource list must match it. */
function checkExistence(resource: JsonValue, pattern: JsonValue, path: string, walk: PatternWalk): Failure | undefined {
  if (!Array.isArray(resource)) return existenceOnNonList(path, resource);
  if (!Array.isArray(pattern)) return existencePatternNotList(path, pattern);
  for (const wanted of pattern) {
    if (!isObject(wanted)) return existencePatternNotMaps(path, pattern);
    const found = resource.some((item, i) => checkElement(item, wanted, path + i + '/', walk) === undefined);
    if (!found) return failure(path, `existence anchor validation failed at path ${path}`);
  }
  return undefined;
}

function checkArray(resource: JsonValue[], pattern: JsonValue[], path: string, walk: PatternWalk): Failure | undefined {
  if (pattern.length === 0) return failure(path, 'pattern Array empty');
  const first = pattern[0]!;
  // Only the first pattern element counts when it is a map (every resource element must match it)
  // or a scalar (every resource element must equal it).
  if (isObject(first)) return checkEachElement(resource, resource.length, pattern, true, path, walk);
  if (!Array.isArray(first)) return checkElement(resource, first, path, walk);
  // Nested arrays are matched position by position.
  if (resource.length < pattern.length) return nestedArrayTooShort(resource, pattern);
  return checkEachElement(resource, pattern.length, pattern, false, path, walk);
}

/**
 * Checks the first `count` elements, against the pattern's first element (`repeatFirst`, a map) or
 * each against the pattern element at its position. An element whose anchors say "does not apply"
 * is skipped; the array fails on the first real failure, and is itself skipped only when every
 * element was skipped.
 */
function checkEachElement(
  resource: readonly JsonValue[],
  count: number,
  pattern: readonly JsonValue[],
  repeatFirst: boolean,
  path: string,
  walk: PatternWalk,
): Failure | undefined {
  const first = pattern[0]!;
  const firstPlan = repeatFirst && isObject(first) ? planFor(first) : undefined;
  let applied = 0;
  let skipped: Failure[] | undefined;
  for (let i = 0; i < count; i++) {
    const elementPath = path + i + '/';
    const result = firstPlan
      ? checkObject(resource[i], first as JsonObject, firstPlan, elementPath, walk)
      : checkElement(resource[i], pattern[i]!, elementPath, walk);
    if (!result) applied++;
    else if (isSkip(result)) (skipped ??= []).push(result);
    else return result;
  }
  return applied === 0 && skipped ? aggregatedSkip(skipped) : undefined;
}
