/**
 * Structured merge of an apply configuration into a live object, as server-side apply merges
 * (sigs.k8s.io/structured-merge-diff, which kube's ApplyConfiguration mutations use): objects merge
 * field by field (a `null` removes the field), atomic objects and atomic lists are replaced whole,
 * sets are merged by value and map lists by their key fields, keeping the live order and placing
 * the configuration's items in its own order. Inputs are left untouched.
 */
import { deepEqual, isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { MergeShape } from './shape';

/** An apply configuration that cannot be merged (an item without its keys, duplicated keys). */
export class StructuredMergeError extends Error {
  override readonly name = 'StructuredMergeError';
}

/** Deeper nesting than this is refused (objects are already bounded in size by the caller). */
const MAX_DEPTH = 100;

/** `live` with `patch` merged in. */
export function structuredMerge(live: JsonObject, patch: JsonObject, shape: MergeShape): JsonObject {
  return mergeObject(live, patch, shape, '', 0);
}

/**
 * The paths (`.spec.selector`, `.spec.list[0]`) of atomic objects and lists an apply configuration
 * sets, as kube's validatePatch finds them: an ApplyConfiguration may not set them, since merging
 * would silently drop what it leaves out.
 */
export function atomicPaths(patch: JsonValue, shape: MergeShape, path = ''): string[] {
  const out: string[] = [];
  const visit = (value: JsonValue, node: MergeShape, at: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (isObject(value)) {
      if (node.atomicObject) out.push(at);
      for (const [name, child] of Object.entries(value)) {
        if (node.declares(name)) visit(child, node.field(name), `${at}.${name}`, depth + 1);
      }
    } else if (Array.isArray(value)) {
      if (node.list.type === 'atomic') out.push(at);
      value.forEach((item, i) => visit(item, node.item(), `${at}[${i}]`, depth + 1));
    }
  };
  visit(patch, shape, path, 0);
  return out;
}

function merge(
  live: JsonValue | undefined,
  patch: JsonValue,
  shape: MergeShape,
  path: string,
  depth: number,
): JsonValue {
  if (depth > MAX_DEPTH) throw new StructuredMergeError(`${path}: nested deeper than ${MAX_DEPTH} levels`);
  if (isObject(patch)) {
    if (shape.atomicObject || !isObject(live)) return withoutNulls(patch);
    return mergeObject(live, patch, shape, path, depth);
  }
  if (Array.isArray(patch)) {
    const list = shape.list;
    if (list.type === 'atomic' || !Array.isArray(live)) return withoutNulls(patch);
    const keyOf =
      list.type === 'set'
        ? (item: JsonValue) => JSON.stringify(canonical(item))
        : (item: JsonValue, i: number, side: string) => mapKey(item, list.keys, `${path}[${i}]`, side);
    return mergeList(live, patch, shape.item(), keyOf, path, depth);
  }
  return patch;
}

function mergeObject(live: JsonObject, patch: JsonObject, shape: MergeShape, path: string, depth: number): JsonObject {
  const out: JsonObject = { ...live };
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[name];
      continue;
    }
    const merged = merge(
      Object.hasOwn(live, name) ? live[name] : undefined,
      value,
      shape.field(name),
      `${path}.${name}`,
      depth + 1,
    );
    Object.defineProperty(out, name, { value: merged, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Merges two lists by item identity: an item of both is merged where the configuration places it,
 * live items the configuration does not name keep their place, new items come in its order.
 */
function mergeList(
  live: JsonValue[],
  patch: JsonValue[],
  itemShape: MergeShape,
  keyOf: (item: JsonValue, i: number, side: string) => string,
  path: string,
  depth: number,
): JsonValue[] {
  const liveKeys = live.map((item, i) => keyOf(item, i, 'live object'));
  const patchKeys = patch.map((item, i) => keyOf(item, i, 'apply configuration'));
  const liveByKey = new Map<string, JsonValue>();
  liveKeys.forEach((key, i) => liveByKey.set(key, live[i] as JsonValue));
  const patchByKey = new Map<string, JsonValue>();
  patchKeys.forEach((key, i) => {
    if (patchByKey.has(key)) throw new StructuredMergeError(`${path}[${i}]: duplicate entries for key ${key}`);
    patchByKey.set(key, patch[i] as JsonValue);
  });
  const out: JsonValue[] = [];
  const emitted = new Set<string>();
  const emitPatch = (key: string, i: number) => {
    const base = liveByKey.get(key);
    const item = patch[i] as JsonValue;
    out.push(base === undefined ? withoutNulls(item) : merge(base, item, itemShape, `${path}[${i}]`, depth + 1));
    emitted.add(key);
  };
  let l = 0;
  let r = 0;
  while (l < live.length || r < patch.length) {
    if (l < live.length && emitted.has(liveKeys[l] as string)) {
      l++;
      continue;
    }
    if (l < live.length && r < patch.length) {
      const lk = liveKeys[l] as string;
      const rk = patchKeys[r] as string;
      if (lk === rk) {
        emitPatch(rk, r);
        l++;
        r++;
      } else if (!patchByKey.has(lk)) {
        out.push(live[l] as JsonValue);
        emitted.add(lk);
        l++;
      } else {
        emitPatch(rk, r);
        r++;
      }
      continue;
    }
    if (l < live.length) {
      out.push(live[l] as JsonValue);
      emitted.add(liveKeys[l] as string);
      l++;
    } else {
      emitPatch(patchKeys[r] as string, r);
      r++;
    }
  }
  return out;
}

function mapKey(item: JsonValue, keys: readonly string[], path: string, side: string): string {
  if (!isObject(item))
    throw new StructuredMergeError(`${path}: an item of a map list in the ${side} must be an object`);
  // A missing key field counts as unset (kube fills defaults such as a port's protocol first; Edict
  // knows no defaults, so items that both omit a key still match).
  const values = keys.map((key) => {
    const value = item[key];
    if (value !== undefined && value !== null && typeof value === 'object') {
      throw new StructuredMergeError(`${path}: key field "${key}" of an item in the ${side} must be a scalar`);
    }
    return value ?? null;
  });
  return JSON.stringify(values);
}

/** A JSON value with object keys sorted, so equal sets items have one spelling. */
function canonical(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = canonical(value[key] as JsonValue);
  return out;
}

/** A new value from the configuration: `null` fields of its objects mean "not set". */
function withoutNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null) continue;
    Object.defineProperty(out, key, {
      value: withoutNulls(item),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Whether the merge changed nothing. */
export function unchanged(before: JsonObject, after: JsonObject): boolean {
  return deepEqual(before, after);
}
