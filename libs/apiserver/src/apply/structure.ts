/**
 * Walks objects by their shape, as structured-merge-diff does: the set of fields an applied
 * configuration sets, the fields one object adds, changes or removes against another, the merge of
 * an applied configuration into a live object, and the removal of owned paths.
 */
import { deepEqual, isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { fieldElement, FieldSet, keyElement, valueElement, type FieldPath, type PathElement } from './field-set';
import type { Shape } from './shapes';

/** The key fields of a map-list item, or `undefined` when it carries none of them (the list is then atomic). */
function itemKey(item: JsonValue, keys: readonly string[]): PathElement | undefined {
  if (!isObject(item)) return undefined;
  const present = keys.filter((key) => item[key] !== undefined && item[key] !== null);
  if (present.length === 0) return undefined;
  return keyElement(Object.fromEntries(present.map((key) => [key, item[key]!])));
}

/** The list's items by path element, or `undefined` when it has to be treated as atomic. */
function listItems(list: readonly JsonValue[], shape: Shape): Map<PathElement, JsonValue> | undefined {
  if (shape.list.type === 'atomic') return undefined;
  const items = new Map<PathElement, JsonValue>();
  for (const item of list) {
    const element = shape.list.type === 'set' ? valueElement(item) : itemKey(item, shape.list.keys);
    if (element === undefined) return undefined;
    items.set(element, item);
  }
  return items;
}

/**
 * The fields a configuration sets: scalars, atomic lists and objects, list items (members
 * themselves) and what they hold. Objects are not members: an applier owns what it put inside.
 */
export function fieldsOf(value: JsonValue, shape: Shape, path: FieldPath = [], out = new FieldSet()): FieldSet {
  if (isObject(value)) {
    if (shape.atomicObject && path.length > 0) {
      out.insert(path);
      return out;
    }
    for (const [name, child] of Object.entries(value))
      fieldsOf(child, shape.field(name), [...path, fieldElement(name)], out);
    return out;
  }
  if (Array.isArray(value)) {
    const items = listItems(value, shape);
    if (!items) {
      out.insert(path);
      return out;
    }
    for (const [element, item] of items) {
      const itemPath = [...path, element];
      out.insert(itemPath);
      if (shape.list.type === 'map') fieldsOf(item, shape.item(), itemPath, out);
    }
    return out;
  }
  out.insert(path);
  return out;
}

/** Every node of `value` a write that adds or removes it changes: scalars, atomics, list items, owned nodes. */
function everyNode(value: JsonValue, shape: Shape, path: FieldPath, out: FieldSet, item = false): void {
  const container = isObject(value) || Array.isArray(value);
  if (!container || item || shape.tracksNode(value)) out.insert(path);
  if (isObject(value)) {
    if (shape.atomicObject && path.length > 0) return out.insert(path);
    for (const [name, child] of Object.entries(value))
      everyNode(child, shape.field(name), [...path, fieldElement(name)], out);
  } else if (Array.isArray(value)) {
    const items = listItems(value, shape);
    if (!items) return out.insert(path);
    for (const [element, child] of items) {
      if (shape.list.type === 'map') everyNode(child, shape.item(), [...path, element], out, true);
      else out.insert([...path, element]);
    }
  }
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/** What changes from `before` to `after`: nodes that appear, scalar (or atomic) values that differ, nodes that go. */
export function compare(before: JsonValue | undefined, after: JsonValue | undefined, shape: Shape): Comparison {
  const result = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareAt(before, after, shape, [], result);
  return result;
}

function compareAt(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  shape: Shape,
  path: FieldPath,
  result: Comparison,
  item = false,
): void {
  // The same value (a subtree a write kept): nothing below changed.
  if (before === after) return;
  if (before === undefined) return everyNode(after!, shape, path, result.added, item);
  if (after === undefined) return everyNode(before, shape, path, result.removed, item);
  if (isObject(before) && isObject(after) && !(shape.atomicObject && path.length > 0)) {
    for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
      compareAt(before[name], after[name], shape.field(name), [...path, fieldElement(name)], result);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const beforeItems = listItems(before, shape);
    const afterItems = listItems(after, shape);
    if (beforeItems && afterItems) {
      for (const element of new Set([...beforeItems.keys(), ...afterItems.keys()])) {
        const itemPath = [...path, element];
        if (shape.list.type === 'map') {
          compareAt(beforeItems.get(element), afterItems.get(element), shape.item(), itemPath, result, true);
        } else if (!beforeItems.has(element)) result.added.insert(itemPath);
        else if (!afterItems.has(element)) result.removed.insert(itemPath);
      }
      return;
    }
  }
  if (!deepEqual(before, after)) result.modified.insert(path);
}

/** An applied configuration merged into the live object: maps by field, map lists by key, sets by value; the rest replaced. */
export function mergeApplied(live: JsonValue | undefined, applied: JsonValue, shape: Shape, root = true): JsonValue {
  if (isObject(live) && isObject(applied) && !(shape.atomicObject && !root)) {
    const merged: JsonObject = { ...live };
    for (const [name, value] of Object.entries(applied)) {
      if (value === null) delete merged[name];
      else merged[name] = mergeApplied(live[name], value, shape.field(name), false);
    }
    return merged;
  }
  if (Array.isArray(live) && Array.isArray(applied)) {
    const liveItems = listItems(live, shape);
    const appliedItems = listItems(applied, shape);
    if (liveItems && appliedItems) {
      const merged: JsonValue[] = [...liveItems].map(([element, item]) =>
        appliedItems.has(element)
          ? shape.list.type === 'map'
            ? mergeApplied(item, appliedItems.get(element)!, shape.item(), false)
            : item
          : item,
      );
      for (const [element, item] of appliedItems) if (!liveItems.has(element)) merged.push(item);
      return merged;
    }
  }
  return applied;
}

/**
 * `object` without the node at `path`. With `dropEmptied`, objects left empty by the removal go too
 * (typed objects omit empty maps); `undefined` when the root itself would go.
 */
export function removePath(object: JsonObject, path: FieldPath, shape: Shape, dropEmptied: boolean): JsonObject {
  return (removeAt(object, path, shape, dropEmptied) as JsonObject | undefined) ?? {};
}

function removeAt(value: JsonValue, path: FieldPath, shape: Shape, dropEmptied: boolean): JsonValue | undefined {
  if (path.length === 0) return undefined;
  const [element, ...rest] = path as [PathElement, ...PathElement[]];
  if (element.startsWith('f:') && isObject(value)) {
    const name = element.slice(2);
    if (!Object.hasOwn(value, name)) return value;
    const child = removeAt(value[name]!, rest, shape.field(name), dropEmptied);
    const copy: JsonObject = { ...value };
    if (child === undefined) delete copy[name];
    else copy[name] = child;
    return dropEmptied && Object.keys(copy).length === 0 ? undefined : copy;
  }
  if (Array.isArray(value)) {
    const items = listItems(value, shape);
    if (!items?.has(element)) return value;
    const target = items.get(element)!;
    const index = value.indexOf(target);
    const child = rest.length === 0 ? undefined : removeAt(target, rest, shape.item(), false);
    const copy = [...value];
    if (child === undefined) copy.splice(index, 1);
    else copy[index] = child;
    return copy;
  }
  return value;
}
