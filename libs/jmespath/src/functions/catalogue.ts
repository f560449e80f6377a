import {
  TYPE_ANY,
  TYPE_ARRAY,
  TYPE_ARRAY_ARRAY,
  TYPE_ARRAY_NUMBER,
  TYPE_ARRAY_OBJECT,
  TYPE_ARRAY_STRING,
  TYPE_BOOLEAN,
  TYPE_EXPREF,
  TYPE_NULL,
  TYPE_NUMBER,
  TYPE_OBJECT,
  TYPE_STRING,
  type InputSignature,
} from '@jmespath-community/jmespath';
import { registeredSignatures, type JpType } from '../runtime';
import { builtinOverrides } from './builtins';
import { kyvernoFunctions } from './register';

/**
 * The standard JMESPath functions (and the community library's additions) that Edict runs as the
 * library provides them: what they return and do. Their arguments are the library's own (read from
 * the runtime); Kyverno's functions and Edict's overrides carry all of this beside their definitions.
 */
const standardFunctions: Readonly<Record<string, { returns: JpType[]; note: string }>> = {
  abs: { returns: ['number'], note: 'returns the absolute value of a number' },
  avg: { returns: ['number'], note: 'returns the average of an array of numbers' },
  ceil: { returns: ['number'], note: 'returns the next highest integer value of a number' },
  ends_with: { returns: ['bool'], note: 'tells whether the first string ends with the second' },
  find_first: {
    returns: ['number', 'null'],
    note: 'returns the index of the first occurrence of the second string in the first, between optional start and end positions, or null',
  },
  find_last: {
    returns: ['number', 'null'],
    note: 'returns the index of the last occurrence of the second string in the first, between optional start and end positions, or null',
  },
  floor: { returns: ['number'], note: 'returns the next lowest integer value of a number' },
  from_items: { returns: ['object'], note: 'builds an object from an array of [key, value] pairs' },
  group_by: {
    returns: ['object'],
    note: 'groups the elements of an array into an object keyed by the value of the expression for each element',
  },
  join: { returns: ['string'], note: 'joins an array of strings with the separator given first' },
  keys: { returns: ['array[string]'], note: "returns an object's keys" },
  length: { returns: ['number'], note: 'returns the length of a string, array or object' },
  lower: { returns: ['string'], note: 'returns a string in lower case' },
  map: { returns: ['array'], note: 'applies an expression to every element of an array' },
  max: { returns: ['number', 'string'], note: 'returns the highest number or string of an array' },
  max_by: { returns: ['any'], note: 'returns the element of an array for which the expression is highest' },
  min: { returns: ['number', 'string'], note: 'returns the lowest number or string of an array' },
  min_by: { returns: ['any'], note: 'returns the element of an array for which the expression is lowest' },
  not_null: { returns: ['any'], note: 'returns the first argument that is not null' },
  pad_left: {
    returns: ['string'],
    note: 'pads a string on the left to the given width, with spaces or the optional padding string',
  },
  pad_right: {
    returns: ['string'],
    note: 'pads a string on the right to the given width, with spaces or the optional padding string',
  },
  reverse: { returns: ['string', 'array'], note: 'reverses a string or an array' },
  sort_by: { returns: ['array'], note: 'sorts an array by the value of the expression for each element' },
  starts_with: { returns: ['bool'], note: 'tells whether the first string starts with the second' },
  to_array: { returns: ['array'], note: 'returns an array as is, any other value as a one-element array' },
  trim_left: { returns: ['string'], note: 'trims the start of a string of whitespace or of the optional characters' },
  trim_right: { returns: ['string'], note: 'trims the end of a string of whitespace or of the optional characters' },
  type: {
    returns: ['string'],
    note: 'returns the type of a value: number, string, boolean, array, object or null',
  },
  upper: { returns: ['string'], note: 'returns a string in upper case' },
  values: { returns: ['array'], note: "returns an object's values" },
  zip: { returns: ['array[array]'], note: 'combines arrays element by element into arrays of pairs (or more)' },
};

/** One function as `jp function` lists it. */
export interface FunctionEntry {
  readonly name: string;
  /** The accepted type names of each argument. */
  readonly arguments: readonly (readonly JpType[])[];
  readonly returns: readonly JpType[];
  readonly note: string;
}

const TYPE_NAMES = new Map<number, JpType>([
  [TYPE_NUMBER, 'number'],
  [TYPE_ANY, 'any'],
  [TYPE_STRING, 'string'],
  [TYPE_ARRAY, 'array'],
  [TYPE_OBJECT, 'object'],
  [TYPE_BOOLEAN, 'bool'],
  [TYPE_EXPREF, 'expref'],
  [TYPE_NULL, 'null'],
  [TYPE_ARRAY_NUMBER, 'array[number]'],
  [TYPE_ARRAY_STRING, 'array[string]'],
  [TYPE_ARRAY_OBJECT, 'array[object]'],
  [TYPE_ARRAY_ARRAY, 'array[array]'],
]);

const argumentTypes = (signature: readonly InputSignature[]) =>
  signature.map((argument) => argument.types.map((type) => TYPE_NAMES.get(type) ?? 'any'));

/**
 * Every function a JMESPath expression can call (standard JMESPath, the community additions, and
 * Kyverno's), with its arguments, return types and note. A function the runtime knows but that has
 * no description is an error (the catalogue spec keeps the two in step).
 */
export function functionCatalogue(): FunctionEntry[] {
  const described = new Map(
    [...builtinOverrides, ...kyvernoFunctions].map((definition) => [definition.name, definition]),
  );
  return [...registeredSignatures()].map(([name, signature]) => {
    const own = described.get(name) ?? (Object.hasOwn(standardFunctions, name) ? standardFunctions[name] : undefined);
    if (!own) throw new Error(`JMESPath function ${name} has no description`);
    return { name, arguments: argumentTypes(signature), returns: own.returns, note: own.note };
  });
}

/** The names described by the standard-function table (for the catalogue spec). */
export const describedStandardFunctions = (): string[] => Object.keys(standardFunctions);
