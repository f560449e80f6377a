/**
 * Strategic merge patch as kube-apiserver applies it to built-in types: maps merge, `null` deletes,
 * lists with a merge key (from the engine's table) merge element by element, primitive lists with a
 * merge strategy (finalizers) take the union, other lists are replaced. Directives: `$patch`
 * (replace / delete / merge) in maps and list elements, `$deleteFromPrimitiveList/<field>`,
 * `$retainKeys`; `$setElementOrder/<field>` is accepted and ignored.
 */
import { deepEqual, isObject, type JsonObject, type JsonValue, listStrategyFor } from '@edict/foundation';
import { badRequest } from '../status';

interface Context {
  readonly apiVersion: string;
  readonly kind: string;
}

const PATCH = '$patch';
const DELETE_FROM_PRIMITIVE = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';
const RETAIN_KEYS = '$retainKeys';

export function applyStrategicMerge(
  target: JsonObject,
  patch: JsonValue,
  apiVersion: string,
  kind: string,
): JsonObject {
  if (!isObject(patch)) throw badRequest('strategic merge patch must be a JSON object');
  const merged = mergeMap(target, patch, [], { apiVersion, kind });
  return merged ?? {};
}

/** Merges a patch map into `original`; `undefined` means the map itself is deleted. */
function mergeMap(
  original: JsonObject | undefined,
  patch: JsonObject,
  path: string[],
  ctx: Context,
): JsonObject | undefined {
  const directive = patch[PATCH];
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return stripDirectives(patch) as JsonObject;
  if (directive !== undefined && directive !== 'merge') throw badRequest(`Unknown patch type: ${String(directive)}`);
  const result: JsonObject = isObject(original) ? { ...original } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === PATCH || key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE)) {
      const field = key.slice(DELETE_FROM_PRIMITIVE.length);
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value)) {
        result[field] = current.filter((item) => !value.some((gone) => deepEqual(gone, item)));
      }
      continue;
    }
    if (value === null) {
      delete result[key];
      continue;
    }
    const fieldPath = [...path, key];
    if (isObject(value)) {
      const merged = mergeMap(isObject(result[key]) ? (result[key] as JsonObject) : undefined, value, fieldPath, ctx);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else if (Array.isArray(value)) {
      result[key] = mergeList(Array.isArray(result[key]) ? (result[key] as JsonValue[]) : [], value, fieldPath, ctx);
    } else {
      result[key] = value;
    }
  }
  const retain = patch[RETAIN_KEYS];
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  return result;
}

function mergeList(original: JsonValue[], patch: JsonValue[], path: string[], ctx: Context): JsonValue[] {
  const strategy = listStrategyFor(ctx.apiVersion, ctx.kind, path);
  const replaceAll = patch.some((item) => isObject(item) && item[PATCH] === 'replace');
  if (!strategy?.strategy.includes('merge') || replaceAll) {
    return patch.filter((item) => !(isObject(item) && item[PATCH] === 'replace')).map((item) => stripDirectives(item));
  }
  const mergeKey = strategy.mergeKey;
  if (!mergeKey) {
    // A set of primitives: the union, original order first.
    const union = [...original];
    for (const item of patch) if (!union.some((existing) => deepEqual(existing, item))) union.push(item);
    return union;
  }
  const result = [...original];
  for (const item of patch) {
    if (!isObject(item))
      throw badRequest(`strategic merge patch: list ${path.join('.')} merges by ${mergeKey} and needs objects`);
    const index = result.findIndex((existing) => isObject(existing) && deepEqual(existing[mergeKey], item[mergeKey]));
    if (item[PATCH] === 'delete') {
      if (index >= 0) result.splice(index, 1);
      continue;
    }
    if (index >= 0) result[index] = mergeMap(result[index] as JsonObject, item, path, ctx) ?? {};
    else result.push(stripDirectives(item));
  }
  return result;
}

/** A patch value stored as is, minus any directive keys it carries. */
function stripDirectives(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((item) => stripDirectives(item));
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (
      key === PATCH ||
      key === RETAIN_KEYS ||
      key.startsWith(SET_ELEMENT_ORDER) ||
      key.startsWith(DELETE_FROM_PRIMITIVE)
    )
      continue;
    if (item === null) continue;
    result[key] = stripDirectives(item);
  }
  return result;
}
