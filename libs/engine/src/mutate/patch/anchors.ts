/**
 * Kyverno's anchors inside `patchStrategicMerge`, resolved against the resource before merging
 * (Kyverno's strategic "preprocessing"). Supported anchors:
 *  - `(key): value`   condition: the enclosing map is patched only where it holds; in a list of maps
 *                     it selects the elements to patch (the patch is copied once per matching element,
 *                     with the element's `name`);
 *  - `<(key): value`  global condition: when it fails nowhere matches, the whole patch is dropped;
 *  - `+(key): value`  add the field only when the resource lacks it.
 * Other anchor forms (`=()`, `^()`, `X()`) mean nothing here and stay in the patch as plain keys.
 *
 * The pattern is a private working copy and is edited in place, mirroring Kyverno step by step
 * (including its quirks, noted where they show).
 */
import { cloneJson, isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { matchPattern, parseAnchor, type Anchor } from '../../pattern';
import { scalarText } from './node-text';

/**
 * Why the patch does not apply: a `(key)` condition failed (the enclosing map or list element is
 * not patched), or a `<(key)` global one did (the whole patch is dropped). Returned rather than
 * thrown: a condition that does not hold is the common case (every list element a condition
 * skips), and an Error would capture a stack trace for each.
 */
export type AnchorMiss = 'condition' | 'global';

/** A resource shape the preprocessing cannot walk (e.g. a map where the patch has a list). */
export class PreprocessError extends Error {}

type Value = JsonValue | undefined;
type AnchorTest = (anchor: Anchor) => boolean;

const isCondition: AnchorTest = (a) => a.modifier === '';
const isGlobal: AnchorTest = (a) => a.modifier === '<';
const isAddIfNotPresent: AnchorTest = (a) => a.modifier === '+';
const containsCondition: AnchorTest = (a) => isCondition(a) || isGlobal(a);
const hasAnchor: AnchorTest = (a) => containsCondition(a) || isAddIfNotPresent(a);

function anchorOf(key: string, test: AnchorTest): Anchor | undefined {
  const anchor = parseAnchor(key);
  return anchor && test(anchor) ? anchor : undefined;
}

/** `undefined` means the resource has no such field (Go's nil node), `null` an explicit null. */
function fieldOf(resource: Value, key: string): Value {
  return isObject(resource) && Object.hasOwn(resource, key) ? resource[key] : undefined;
}

/**
 * Resolves the anchors of `pattern` against `resource`, leaving a plain patch in `pattern`, or says
 * why the patch does not apply. Throws PreprocessError for shapes it cannot handle.
 */
export function resolveAnchors(pattern: JsonObject, resource: JsonValue): AnchorMiss | undefined {
  const miss = preprocess(pattern, resource);
  if (!miss) deleteConditionElements(pattern);
  return miss;
}

function preprocess(pattern: JsonValue, resource: Value): AnchorMiss | undefined {
  if (isObject(pattern)) return walkMap(pattern, resource);
  if (Array.isArray(pattern)) return walkList(pattern, resource);
  return undefined;
}

function walkMap(pattern: JsonObject, resource: Value): AnchorMiss | undefined {
  handleAddIfNotPresent(pattern, resource);
  const miss = validateConditions(pattern, resource);
  if (miss) return miss;
  for (const key of Object.keys(pattern)) {
    if (anchorOf(key, hasAnchor)) continue;
    const inner = preprocess(pattern[key]!, fieldOf(resource, key));
    if (inner) return inner;
  }
  return undefined;
}

function walkList(pattern: JsonValue[], resource: Value): AnchorMiss | undefined {
  return pattern.length > 0 && isObject(pattern[0]) ? processListOfMaps(pattern, resource) : undefined;
}

function processListOfMaps(pattern: JsonValue[], resource: Value): AnchorMiss | undefined {
  let resourceElements: readonly JsonValue[] = [];
  if (Array.isArray(resource)) resourceElements = resource;
  else if (isObject(resource) || (resource !== undefined && resource !== null)) {
    throw new PreprocessError(
      `wrong node kind: expected SequenceNode but got ${isObject(resource) ? 'MappingNode' : 'ScalarNode'}`,
    );
  }

  for (const patternElement of [...pattern]) {
    if (!hasAnchors(patternElement, hasAnchor)) continue;
    const hasGlobalConditions = hasAnchors(patternElement, isGlobal);
    let anyGlobalConditionPassed = false;
    let globalMissed = false;
    // Kyverno reuses one copy for every resource element, so `+()` edits made for one element carry
    // over to the next ones.
    const copy = cloneJson(patternElement);

    for (const resourceElement of resourceElements) {
      const miss = preprocess(copy, resourceElement);
      if (miss) {
        if (miss === 'global') globalMissed = true;
        continue;
      }
      if (hasGlobalConditions) anyGlobalConditionPassed = true;
      else addNamedCopy(pattern, copy, resourceElement);
    }

    if (resource === undefined) {
      const miss = preprocess(copy, undefined);
      if (miss === 'global') return miss;
      if (miss) continue;
      if (hasGlobalConditions) anyGlobalConditionPassed = true;
    }
    if (!anyGlobalConditionPassed && globalMissed) return 'global';
  }
  return undefined;
}

/**
 * A list element whose conditions held becomes a patch for that resource element: a copy without
 * anchors, keyed by the element's `name` (elements without a name cannot be targeted and are skipped).
 */
function addNamedCopy(pattern: JsonValue[], element: JsonValue, resourceElement: JsonValue): void {
  const name = fieldOf(resourceElement, 'name');
  if (name === undefined || isNilOrEmpty(name)) return;
  const copy = cloneJson(element);
  if (deleteAnchors(copy, true, false)) return;
  if (!isObject(copy)) return;
  copy.name = name;
  pattern.push(copy);
}

function isNilOrEmpty(value: JsonValue): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/** `+(key)`: dropped when the resource has the field, otherwise renamed to the plain key. */
function handleAddIfNotPresent(pattern: JsonValue, resource: Value): number {
  if (!isObject(pattern)) return 0;
  let count = 0;
  for (const key of Object.keys(pattern)) {
    const anchor = anchorOf(key, isAddIfNotPresent);
    if (!anchor) continue;
    count++;
    if (fieldOf(resource, anchor.key) !== undefined) delete pattern[key];
    else renameKey(pattern, key, anchor.key);
  }
  return count;
}

/** Renames a key in place, keeping its position (kyaml edits the key node). */
function renameKey(map: JsonObject, from: string, to: string): void {
  const entries = Object.entries(map);
  for (const key of Object.keys(map)) delete map[key];
  for (const [key, value] of entries) map[key === from ? to : key] = value;
}

function validateConditions(pattern: JsonObject, resource: Value): AnchorMiss | undefined {
  if (!conditionsHold(pattern, resource, isGlobal)) return 'global';
  if (!conditionsHold(pattern, resource, isCondition)) return 'condition';
  return undefined;
}

/** Whether every condition anchor `test` picks holds against the resource. */
function conditionsHold(pattern: JsonObject, resource: Value, test: AnchorTest): boolean {
  const anchored = Object.keys(pattern).flatMap((key) => {
    const anchor = anchorOf(key, test);
    return anchor ? [{ key, anchor }] : [];
  });
  for (const { key, anchor } of anchored) {
    const resourceValue = fieldOf(resource, anchor.key);
    if (resourceValue === undefined) return false;
    const patternValue = pattern[key]!;
    // A condition whose value adds fields (`(k): {+(f): v}`) is not checked, only applied.
    if (handleAddIfNotPresent(patternValue, resourceValue) > 0) continue;
    const result = matchPattern(asConditionValue(resourceValue), asConditionValue(patternValue));
    if (result.status !== 'pass') return false;
  }
  return true;
}

/** Kyverno compares scalar conditions by their YAML text: `true` and `"true"` are the same. */
function asConditionValue(value: JsonValue): JsonValue {
  return value !== null && typeof value === 'object' ? value : scalarText(value);
}

/** Whether a patch node holds an anchor accepted by `test` anywhere below it. */
function hasAnchors(node: JsonValue, test: AnchorTest): boolean {
  if (Array.isArray(node)) return node.some((element) => hasAnchors(element, test));
  if (isObject(node)) {
    for (const key of Object.keys(node)) {
      if (anchorOf(key, test)) return true;
      const value = node[key]!;
      if (!isNilOrEmpty(value) && hasAnchors(value, test)) return true;
    }
    return false;
  }
  // Kyverno also looks at scalar values, as if they were keys.
  return anchorOf(scalarText(node), containsCondition) !== undefined;
}

function deleteConditionElements(pattern: JsonObject): void {
  for (const key of Object.keys(pattern)) {
    const deleteScalar = anchorOf(key, containsCondition) !== undefined;
    if (deleteAnchors(pattern[key]!, deleteScalar, false)) delete pattern[key];
  }
}

/**
 * Removes condition anchors from a patch node; returns true when the node is left with nothing to
 * apply and should itself go. Note: empty maps (`emptyDir: {}`) count as nothing, as in Kyverno.
 */
function deleteAnchors(node: JsonValue, deleteScalar: boolean, traverseMaps: boolean): boolean {
  if (isObject(node)) return deleteAnchorsInMap(node, traverseMaps);
  if (Array.isArray(node)) return deleteAnchorsInList(node, traverseMaps);
  return deleteScalar;
}

function deleteAnchorsInMap(node: JsonObject, traverseMaps: boolean): boolean {
  let anchorsLeft = false;
  for (const key of Object.keys(node)) {
    if (!anchorOf(key, containsCondition)) continue;
    if (deleteAnchors(node[key]!, true, traverseMaps)) delete node[key];
    else anchorsLeft = true;
  }
  // A condition whose value still has content becomes a plain field of the patch.
  if (anchorsLeft) {
    for (const key of Object.keys(node)) {
      const anchor = anchorOf(key, containsCondition);
      if (anchor) renameKey(node, key, anchor.key);
    }
  }
  let needToDelete = true;
  for (const key of Object.keys(node)) {
    if (deleteAnchors(node[key]!, false, traverseMaps)) delete node[key];
    else needToDelete = false;
  }
  return needToDelete;
}

function deleteAnchorsInList(node: JsonValue[], traverseMaps: boolean): boolean {
  const elements = [...node];
  const wasEmpty = elements.length === 0;
  elements.forEach((element, i) => {
    let remove: boolean;
    if (hasAnchors(element, hasAnchor)) {
      remove = traverseMaps && isObject(element) ? deleteAnchors(element, true, traverseMaps) : true;
    } else {
      remove = deleteAnchors(element, false, traverseMaps);
    }
    // Kyverno removes by the element's original position even after earlier removals shifted the
    // list, so a second removal in one list can hit a neighbour; reproduced on purpose.
    if (remove && i < node.length) node.splice(i, 1);
  });
  return node.length === 0 && !wasEmpty;
}
