import { type JsonObject, type JsonValue, deepEqual, isObject, sortGoOrder } from '@edict/foundation';
import { argumentTypeError, JmesPathError } from '../errors';
import type { FunctionDefinition } from '../runtime';
import { scalarToString } from './scalar-text';
import { arr, obj, objOrArr, str, strOrNum } from './signatures';

/** Kyverno's intNumber: the float must be a whole number. */
function integer(fn: string, position: number, value: number): number {
  if (!Number.isInteger(value)) {
    throw new JmesPathError(
      `JMESPath function '${fn}': argument #${position}: expected an integer number but got: ${value}`,
    );
  }
  return value;
}

function lookup(args: JsonValue[]): JsonValue {
  const [container, key] = args;
  if (Array.isArray(container)) {
    if (typeof key !== 'number') throw argumentTypeError('lookup', 2, 'Number');
    const index = integer('lookup', 2, key);
    return index >= 0 && index < container.length ? (container[index] as JsonValue) : null;
  }
  if (typeof key !== 'string') throw argumentTypeError('lookup', 2, 'String');
  const map = container as JsonObject;
  return Object.prototype.hasOwnProperty.call(map, key) ? (map[key] as JsonValue) : null;
}

/** Kyverno's items(obj|array, keyName, valueName): object keys sorted, array indexes as numbers. */
function items(args: JsonValue[]): JsonValue {
  const [input, keyName, valueName] = args as [JsonValue, string, string];
  if (Array.isArray(input)) return input.map((value, index) => ({ [keyName]: index, [valueName]: value }));
  const map = input as JsonObject;
  return sortGoOrder(Object.keys(map)).map((key) => ({ [keyName]: key, [valueName]: map[key] as JsonValue }));
}

function objectFromLists(args: JsonValue[]): JsonValue {
  const [keys, values] = args as [JsonValue[], JsonValue[]];
  const out: JsonObject = {};
  keys.forEach((rawKey, i) => {
    const key = scalarToString(rawKey);
    if (key === undefined) throw argumentTypeError('object_from_lists', 1, 'StringArray');
    out[key] = i < values.length ? (values[i] as JsonValue) : null;
  });
  return out;
}

/** Every label of the first map must be present with the same value in the second. */
function labelMatch(args: JsonValue[]): JsonValue {
  const [selector, labels] = args as [JsonObject, JsonObject];
  return Object.entries(selector).every(
    ([key, value]) =>
      isObject(labels) && Object.prototype.hasOwnProperty.call(labels, key) && deepEqual(labels[key], value),
  );
}

export const collectionFunctions: FunctionDefinition[] = [
  {
    name: 'lookup',
    returns: ['any'],
    note: 'returns the value corresponding to the given key/index in the given object/array',
    signature: [objOrArr, strOrNum],
    fn: lookup,
  },
  {
    name: 'items',
    returns: ['array'],
    note: 'converts a map or array to an array of objects where each key:value is an item in the array',
    signature: [objOrArr, str, str],
    fn: items,
  },
  {
    name: 'object_from_lists',
    returns: ['object'],
    note: 'converts a pair of lists containing keys and values to an object',
    signature: [arr, arr],
    fn: objectFromLists,
  },
  {
    name: 'label_match',
    returns: ['bool'],
    note: 'object arguments must be enclosed in backticks; ex. `{{request.object.spec.template.metadata.labels}}`',
    signature: [obj, obj],
    fn: labelMatch,
  },
];
