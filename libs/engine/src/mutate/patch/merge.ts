/**
 * Strategic merge as Kyverno performs it: kustomize's kyaml `merge2` walker with the
 * "prepend" list option. Differences from the API server's strategic merge patch that users see:
 *  - elements a patch names come first in merged lists (patch order), then the untouched ones;
 *  - `$patch: replace | delete | merge` work on maps and list elements, nothing else is a directive
 *    (`$retainKeys`, `$setElementOrder/…`, `$deleteFromPrimitiveList/…` are ordinary keys);
 *  - the whole resource is walked: `null` map values disappear, merged lists lose elements that are
 *    `null`/`{}` and repeated keys (the last repeat wins).
 * Nothing is mutated: changed branches are copied, unchanged ones are returned as they are.
 */
import {
  copyGaining,
  isObject,
  setOwn,
  type JsonObject,
  type JsonValue,
  fieldSchema,
  type ListStrategy,
  type SchemaNode,
} from '@edict/foundation';
import { nodeKind, scalarText, wrongKindMessage, type NodeKind } from './node-text';

export class MergeError extends Error {}

type Value = JsonValue | undefined;

const DIRECTIVE = '$patch';

/** Merges `patch` into `dest`; `undefined` means the value is cleared. */
export function mergeValue(dest: Value, patch: Value, schema: SchemaNode | undefined): Value {
  if (patch === undefined) return normalize(dest, schema);
  const lead = dest !== undefined && dest !== null ? dest : patch;
  if (lead === null) return undefined;
  if (isObject(lead)) {
    expectKind('MappingNode', patch);
    return mergeMap(dest as JsonObject | null | undefined, patch as JsonObject | null, schema);
  }
  if (Array.isArray(lead)) {
    expectKind('SequenceNode', patch);
    return mergeList(dest as JsonValue[] | null | undefined, patch as JsonValue[] | null, schema);
  }
  expectKind('ScalarNode', patch);
  return patch === null ? undefined : patch;
}

function expectKind(expected: NodeKind, value: JsonValue): void {
  if (value !== null && nodeKind(value) !== expected) throw new MergeError(wrongKindMessage(expected, value));
}

/** A map patch's `$patch` directive, and the patch without it (kyaml strips known directives). */
function readDirective(patch: JsonObject): { directive: string | undefined; rest: JsonObject } {
  if (!Object.hasOwn(patch, DIRECTIVE)) return { directive: undefined, rest: patch };
  const directive = scalarText(patch[DIRECTIVE]);
  if (directive !== 'replace' && directive !== 'delete' && directive !== 'merge') return { directive, rest: patch };
  const rest: JsonObject = {};
  for (const key of Object.keys(patch)) if (key !== DIRECTIVE) setOwn(rest, key, patch[key]!);
  return { directive, rest };
}

function mergeMap(
  dest: JsonObject | null | undefined,
  patch: JsonObject | null,
  schema: SchemaNode | undefined,
): Value {
  if (dest === undefined || dest === null) {
    // Adding a map: an unknown directive is tolerated (kyaml ignores the error on this path).
    const { directive, rest } = readDirective(patch!);
    if (directive === 'delete') return undefined;
    return mergeFields(rest, rest, schema);
  }
  if (patch === null) return undefined;
  const { directive, rest } = readDirective(patch);
  switch (directive) {
    case undefined:
    case 'merge':
      return mergeFields(dest, rest, schema);
    case 'delete':
      return undefined;
    case 'replace':
      return mergeFields(rest, rest, schema);
    default:
      throw new MergeError(`unknown patch strategy '${directive}'`);
  }
}

/** Walks every field of `dest` and `patch`; copies `dest` only when a field changes. */
function mergeFields(dest: JsonObject, patch: JsonObject | undefined, schema: SchemaNode | undefined): JsonObject {
  let out: JsonObject | undefined;
  for (const key of Object.keys(dest)) {
    const patchValue = patch && Object.hasOwn(patch, key) ? patch[key] : undefined;
    const merged = mergeValue(dest[key], patchValue, fieldSchema(schema, key));
    if (merged === dest[key]) continue;
    out ??= copyForPatch(dest, patch);
    if (merged === undefined) delete out[key];
    else setOwn(out, key, merged);
  }
  if (patch && patch !== dest) {
    for (const key of Object.keys(patch)) {
      if (Object.hasOwn(dest, key)) continue;
      const merged = mergeValue(undefined, patch[key], fieldSchema(schema, key));
      if (merged === undefined) continue;
      out ??= copyForPatch(dest, patch);
      setOwn(out, key, merged);
    }
  }
  return out ?? dest;
}

/** The copy of `dest` a merge changes: it gains the patch's keys that `dest` lacks. */
function copyForPatch(dest: JsonObject, patch: JsonObject | undefined): JsonObject {
  return patch && patch !== dest ? copyGaining(dest, Object.keys(patch)) : { ...dest };
}

/** A resource branch the patch does not touch still goes through the walker. */
function normalize(dest: Value, schema: SchemaNode | undefined): Value {
  if (dest === undefined || dest === null) return undefined;
  if (!isObject(dest) && !(Array.isArray(dest) && isAssociative(schema))) return dest;
  const under = schema ?? NO_SCHEMA;
  if (unchangedBranches.get(dest) === under) return dest;
  const before = branchesWalked++;
  const result = isObject(dest)
    ? mergeFields(dest, undefined, schema)
    : mergeAssociative(dest as JsonValue[], undefined, schema!.list!, schema!.items);
  if (result === dest && branchesWalked - before >= REMEMBERED_MIN_BRANCHES) unchangedBranches.set(dest, under);
  return result;
}

/** Branches walked so far; a branch with fewer below it is cheaper to walk again than to remember. */
let branchesWalked = 0;
const REMEMBERED_MIN_BRANCHES = 8;

/**
 * Branches the walker returned unchanged, with the schema they were walked under. Every patch walks
 * the whole resource, and a review's patches (a policy's rules, each foreach element, the next
 * policies) meet the same untouched branches again. Resources are never changed in place (the
 * walker and the engine copy on write), so what came back unchanged once does again.
 */
const unchangedBranches = new WeakMap<object, SchemaNode | typeof NO_SCHEMA>();
const NO_SCHEMA = Symbol('no schema');

function isAssociative(schema: SchemaNode | undefined): boolean {
  return schema?.list?.merges === true;
}

function mergeList(
  dest: JsonValue[] | null | undefined,
  patch: JsonValue[] | null,
  schema: SchemaNode | undefined,
): Value {
  if (!isAssociative(schema)) return patch === null ? undefined : patch;
  if (patch === null) return undefined;
  const { list, items } = schema!;
  if (dest === undefined || dest === null) return mergeAssociative(patch, patch, list!, items);
  return mergeAssociative(dest, patch, list!, items);
}

function mergeAssociative(
  dest: JsonValue[],
  patch: JsonValue[] | undefined,
  strategy: ListStrategy,
  items: SchemaNode | undefined,
): JsonValue[] {
  const merged =
    strategy.keys.length === 0 ? mergePrimitiveSet(dest, patch) : mergeByKeys(dest, patch, strategy.keys, items);
  return sameElements(merged, dest) ? dest : merged;
}

function sameElements(a: readonly JsonValue[], b: readonly JsonValue[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** Sets of scalars (`finalizers`): the union, patch members first, compared by their text. */
function mergePrimitiveSet(dest: JsonValue[], patch: JsonValue[] | undefined): JsonValue[] {
  const chosen = new Map<string, JsonValue>();
  for (const source of patch === undefined || patch === dest ? [dest] : [patch, dest]) {
    for (const item of source) {
      if (item === null) continue;
      const text = scalarText(item);
      if (!chosen.has(text)) chosen.set(text, item);
    }
  }
  return [...chosen.values()];
}

type Tuple = readonly string[];

function tupleOf(element: JsonValue, keys: readonly string[]): Tuple | undefined {
  if (!isObject(element)) return undefined;
  return keys.map((key) => (Object.hasOwn(element, key) ? scalarText(element[key]) : ''));
}

function sameTuple(a: Tuple, b: Tuple): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** kyaml treats two key tuples as one element when they share a value and differ only by blanks. */
function combine(a: Tuple, b: Tuple): Tuple | undefined {
  if (a.length !== b.length) return undefined;
  let common = false;
  const out: string[] = [];
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) {
      common = true;
      out.push(a[i]!);
    } else if (a[i] !== '' && b[i] !== '') {
      return undefined;
    } else {
      out.push(a[i] !== '' ? a[i]! : b[i]!);
    }
  }
  return common ? out : undefined;
}

/** Whether an element's tuple belongs to an identity (its non-blank keys agree, one at least). */
function belongs(element: Tuple | undefined, identity: Tuple): boolean {
  if (!element) return false;
  let equal = false;
  for (let i = 0; i < identity.length; i++) {
    if (identity[i] === '') continue;
    if (element[i] === identity[i]) equal = true;
    else if (element[i] !== '') return false;
  }
  return equal;
}

/**
 * Lists of maps merged by key. Order: the identities of the patch elements, then those of the
 * resource elements (kyaml's prepend mode); elements without any key value are kept at the end
 * (resource) or dropped (patch), since kyaml cannot pair them.
 */
function mergeByKeys(
  dest: JsonValue[],
  patch: JsonValue[] | undefined,
  keys: readonly string[],
  items: SchemaNode | undefined,
): JsonValue[] {
  const destTuples = dest.map((element) => tupleOf(element, keys));
  const patchTuples =
    patch === undefined ? [] : patch === dest ? destTuples : patch.map((element) => tupleOf(element, keys));

  let identities: Tuple[] = [];
  for (const tuple of patch === undefined || patch === dest ? destTuples : [...patchTuples, ...destTuples]) {
    if (tuple && tuple.some((v) => v !== '') && !identities.some((seen) => sameTuple(seen, tuple)))
      identities.push(tuple);
  }
  if (keys.length > 1) identities = combineIdentities(identities);

  const consumed = new Set<number>();
  const out: JsonValue[] = [];
  for (const identity of identities) {
    const destMatches: number[] = [];
    destTuples.forEach((tuple, i) => {
      if (!consumed.has(i) && belongs(tuple, identity)) destMatches.push(i);
    });
    const patchIndex = patch === undefined ? -1 : patchTuples.findIndex((tuple) => belongs(tuple, identity));
    const first = destMatches.length > 0 ? dest[destMatches[0]!] : undefined;
    const patchElement = patchIndex >= 0 ? patch![patchIndex] : undefined;
    if (first === undefined && patchElement === undefined) continue;
    for (const i of destMatches) consumed.add(i);

    const walked = mergeValue(first, patchElement, items);
    if (walked === undefined || (isObject(walked) && Object.keys(walked).length === 0)) continue;
    const replaced =
      first !== undefined && isObject(patchElement) && readDirective(patchElement).directive === 'replace';
    if (destMatches.length > 1) {
      // kyaml merges into the first repeat, then lays every resource repeat back over it: the last wins.
      out.push(dest[destMatches[destMatches.length - 1]!]!);
    } else if (replaced && patch !== dest) {
      // The replacement is overwritten by the resource element when kyaml lays the list back.
      out.push(first!);
    } else {
      out.push(withKeys(walked, keys, identity, first ?? patchElement));
    }
  }
  dest.forEach((element, i) => {
    if (consumed.has(i) || element === null || (destTuples[i] && destTuples[i]!.some((v) => v !== ''))) return;
    if (isObject(element) && Object.keys(element).length === 0) return;
    out.push(element);
  });
  return out;
}

function combineIdentities(identities: Tuple[]): Tuple[] {
  const list = [...identities];
  for (let i = 0; i < list.length; i++) {
    for (let j = 0; j < list.length; j++) {
      const combined = combine(list[i]!, list[j]!);
      if (combined) {
        list[i] = combined;
        list[j] = combined;
      }
    }
  }
  return list.filter((tuple, i) => list.findIndex((other) => sameTuple(other, tuple)) === i);
}

/** kyaml makes sure a merged element still carries its key fields. */
function withKeys(
  walked: JsonValue,
  keys: readonly string[],
  identity: Tuple,
  source: JsonValue | undefined,
): JsonValue {
  if (!isObject(walked) || !isObject(source)) return walked;
  let out: JsonObject | undefined;
  keys.forEach((key, i) => {
    if (identity[i] === '' || Object.hasOwn(walked, key) || !Object.hasOwn(source, key)) return;
    out ??= copyGaining(walked, keys);
    setOwn(out, key, source[key]!);
  });
  return out ?? walked;
}
