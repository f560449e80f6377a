import {
  type JsonValue,
  deepEqual,
  setOwn,
  type JsonObject,
  goJson,
  sortGoOrder,
  goParseFloat,
} from '@edict/foundation';
import { JmesPathError } from '../errors';
import type { FunctionDefinition } from '../runtime';
import { any, arr } from './signatures';
import { TYPE_ANY, TYPE_ARRAY, TYPE_OBJECT, TYPE_STRING } from '@jmespath-community/jmespath';

/**
 * Standard JMESPath functions where the JS community library differs from the Go implementation
 * Kyverno runs: number parsing, JSON text (Go sorts keys and escapes <, >, &), numeric sorting
 * and deep equality in `contains`.
 */

function toNumber(args: JsonValue[]): JsonValue {
  const value = args[0];
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return null;
  const parsed = goParseFloat(value);
  return parsed === undefined || !Number.isFinite(parsed) ? null : parsed;
}

function toString(args: JsonValue[]): JsonValue {
  const value = args[0] as JsonValue;
  return typeof value === 'string' ? value : goJson(value);
}

function sort(args: JsonValue[]): JsonValue {
  const values = [...(args[0] as JsonValue[])];
  if (values.length === 0) return values;
  if (values.every((v) => typeof v === 'number')) return (values as number[]).sort((a, b) => a - b);
  if (values.every((v) => typeof v === 'string')) return sortGoOrder(values as string[]);
  throw new JmesPathError('Invalid type: sort() expects an array of only numbers or only strings');
}

function contains(args: JsonValue[]): JsonValue {
  const [subject, search] = args as [JsonValue, JsonValue];
  if (typeof subject === 'string') return typeof search === 'string' && subject.includes(search);
  return (subject as JsonValue[]).some((item) => deepEqual(item, search));
}

/** The library's merge uses Object.assign, which turns a `__proto__` key into a prototype change. */
function merge(args: JsonValue[]): JsonValue {
  const merged: JsonObject = {};
  for (const object of args as JsonObject[]) for (const key of Object.keys(object)) setOwn(merged, key, object[key]!);
  return merged;
}

export const builtinOverrides: FunctionDefinition[] = [
  {
    name: 'to_number',
    returns: ['number'],
    note: 'returns the number a string or number stands for, null when it does not stand for one',
    signature: [any],
    fn: toNumber,
  },
  {
    name: 'to_string',
    returns: ['string'],
    note: 'returns a string as is, any other value as its JSON text',
    signature: [any],
    fn: toString,
  },
  {
    name: 'sort',
    returns: ['array'],
    note: 'sorts an array of numbers or of strings in ascending order',
    signature: [arr],
    fn: sort,
  },
  {
    name: 'contains',
    returns: ['bool'],
    note: 'tells whether a string contains the search string, or an array an element equal to the search value',
    signature: [{ types: [TYPE_STRING, TYPE_ARRAY] }, { types: [TYPE_ANY] }],
    fn: contains,
  },
  {
    name: 'merge',
    returns: ['object'],
    note: 'merges objects into one; later objects win on a shared key',
    signature: [{ types: [TYPE_OBJECT], variadic: true }],
    fn: merge,
  },
];
