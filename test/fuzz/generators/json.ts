/**
 * JSON building blocks the review and policy generators share: keys that are dangerous as property
 * names, strings and numbers at their edges, and values nested wide and deep. Only what JSON can
 * carry (no NaN, no Infinity, no undefined), since everything here goes over the wire or comes from
 * JSON.parse in production.
 */
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '@edict/foundation';

/** Names that mean something to JavaScript objects, JSON Pointer, JMESPath or Kyverno anchors. */
export const TRICKY_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'length',
  '',
  ' ',
  '0',
  '-1',
  'a.b',
  'a/b',
  '~0',
  '~1',
  '*',
  '?',
  '=(x)',
  '+(x)',
  'X(x)',
  '<(x)',
  '^(x)',
  '(x)',
  '{{x}}',
  '$patch',
  '$setElementOrder/x',
  '$retainKeys',
  'app.kubernetes.io/name',
  'ключ',
  '鍵',
  '🔑',
  '\u0000',
  '\u2028',
] as const;

export const key: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY_KEYS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
);

/** A long run of one character: cheap to make, expensive for anything quadratic. */
const longString = fc
  .tuple(fc.constantFrom('a', 'é', '{', '*', ' ', '\\', '"', '🙂'), fc.integer({ min: 1_000, max: 20_000 }))
  .map(([unit, count]) => unit.repeat(count));

export const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 16 }) },
  { weight: 2, arbitrary: fc.constantFrom(...TRICKY_KEYS, 'nginx:1.27', 'true', 'null', '1Gi', '100m', '10s', '*') },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 16 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 1, arbitrary: longString },
);

export const number: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.integer({ min: -10, max: 10 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    0,
    -0,
    0.1,
    -1.5,
    1e21,
    -1e21,
    1e308,
    -1e308,
    5e-324,
    Number.MAX_SAFE_INTEGER + 2,
    Number.MIN_SAFE_INTEGER - 2,
    2 ** 53,
    2 ** 64,
  ),
);

export const scalar: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 2, arbitrary: number },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** An object from generated entries, keeping `__proto__` as an own key as JSON.parse does. */
export function objectOf(entries: ReadonlyArray<readonly [string, JsonValue]>): JsonObject {
  const out: JsonObject = {};
  for (const [name, value] of entries)
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

export function dictionary(values: fc.Arbitrary<JsonValue>, maxKeys = 5): fc.Arbitrary<JsonObject> {
  return fc.array(fc.tuple(key, values), { maxLength: maxKeys }).map(objectOf);
}

/** Any JSON value, a few levels deep and a few entries wide. */
export const json: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: dictionary(tie('value'), 4) },
  ),
})).value;

/** A value wrapped in `min`..`max` arrays or objects: for anything that recurses on the input. */
export function nestedJson(min: number, max: number): fc.Arbitrary<JsonValue> {
  return fc
    .tuple(fc.integer({ min, max }), fc.constantFrom('array', 'object', 'mixed'), key)
    .map(([depth, shape, name]) => {
      let value: JsonValue = 'bottom';
      for (let i = 0; i < depth; i++)
        value = shape === 'array' || (shape === 'mixed' && i % 2) ? [value] : objectOf([[name, value]]);
      return value;
    });
}

/** Deep, yet within the 1000 levels a review may nest (the generators' own nesting stays far below 100). */
export const deepJson = nestedJson(100, 850);

/** JSON with some deep and some long values among the ordinary ones. */
export const anyJson: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 12, arbitrary: json },
  { weight: 1, arbitrary: deepJson },
);
