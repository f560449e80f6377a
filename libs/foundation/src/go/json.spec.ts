import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goJson, goJsonWithout, type GoJsonOmissions } from './json';
import { compareCodePoints } from './strings';

describe('goJson: json.Marshal of a decoded value', () => {
  it('sorts keys at every level and writes no spaces', () => {
    expect(goJson({ b: 1, a: { d: [true, null], c: 'x' } })).toBe('{"a":{"c":"x","d":[true,null]},"b":1}');
  });

  it("orders keys by UTF-8 bytes, as Go's map encoding does, not by UTF-16 units", () => {
    // U+FF21 (one UTF-16 unit, 0xFF21) sorts before U+1F600 (surrogates from 0xD83D) in Go.
    expect(goJson({ '\u{1F600}': 1, '\uFF21': 2, b: 3 })).toBe('{"b":3,"\uFF21":2,"\u{1F600}":1}');
  });

  it('escapes HTML characters and line separators as Go does', () => {
    expect(goJson('<a&b>\u2028\u2029')).toBe('"\\u003ca\\u0026b\\u003e\\u2028\\u2029"');
  });

  it('writes any string as JSON does, with the HTML characters and line separators escaped', () => {
    expect(goJson('say "hi"\\\n\t\b\f\u0001')).toBe('"say \\"hi\\"\\\\\\n\\t\\b\\f\\u0001"');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const expected = JSON.stringify(text).replace(
          /[<>&\u2028\u2029]/g,
          (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
        );
        expect(goJson(text)).toBe(expected);
      }),
    );
  });

  it('writes numbers as the float encoder does', () => {
    expect(goJson([1.5, 1e6, 1e21, 1e-7, -0])).toBe('[1.5,1000000,1e+21,1e-7,-0]');
  });

  it('writes undefined and non-finite numbers as null and skips undefined fields', () => {
    expect(goJson({ a: undefined, b: Number.NaN })).toBe('{"b":null}');
    expect(goJson(undefined)).toBe('null');
  });

  it('writes what the straightforward encoder writes, on any JSON value (unicode, HTML characters, numbers, nesting)', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'B', '<', '>', '&', '"', '\\', '\n', '\u2028', 'é', '\uFF21', '\u{1F600}', '\ud800'),
    });
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 5 }),
        fc.dictionary(fc.oneof(text, fc.constantFrom('name', 'image', 'b', 'a', 'aa', '__proto__')), tie('value'), {
          maxKeys: 40,
        }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        expect(goJson(value)).toBe(straightforwardGoJson(value));
      }),
      { numRuns: 500 },
    );
    // A real object, keys out of order at every level.
    const pod = JSON.parse(
      '{"spec":{"containers":[{"name":"a","image":"x:1","ports":[{"containerPort":80}]}],"nodeName":"n"},"metadata":{"name":"p","labels":{"z":"1","a":"<b>"}},"kind":"Pod","apiVersion":"v1"}',
    ) as unknown;
    expect(goJson(pod)).toBe(straightforwardGoJson(pod));
  });

  it('sorts objects with many keys and keys that repeat across objects', () => {
    const keys = Array.from({ length: 100 }, (_, index) => `k${(index * 37) % 100}`);
    const object = Object.fromEntries(keys.map((key) => [key, { [key]: key }]));
    expect(goJson(object)).toBe(straightforwardGoJson(object));
  });
});

describe('goJsonWithout', () => {
  const omit: GoJsonOmissions = new Map<string, GoJsonOmissions | true>([
    ['metadata', true],
    ['spec', new Map([['nodeName', true]])],
  ]);

  it('writes the object as if the omitted fields were absent, nested omissions inside objects only', () => {
    const object = { spec: { nodeName: 'n', b: 1, a: [1] }, metadata: { name: 'x' }, kind: 'Pod' };
    expect(goJsonWithout(object, omit)).toBe('{"kind":"Pod","spec":{"a":[1],"b":1}}');
    expect(goJsonWithout({ spec: [{ nodeName: 'n' }] }, omit)).toBe('{"spec":[{"nodeName":"n"}]}');
    expect(goJsonWithout({ spec: 'text', other: { nodeName: 1 } }, omit)).toBe(
      '{"other":{"nodeName":1},"spec":"text"}',
    );
    expect(object.spec.nodeName).toBe('n');
  });
});

/** The encoder before the hand-written scans: regular expressions, the native sort, no caches. */
function straightforwardGoJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return straightforwardString(value);
  if (typeof value === 'number') return !Number.isFinite(value) ? 'null' : Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return '[' + value.map(straightforwardGoJson).join(',') + ']';
  if (typeof value !== 'object') return 'null';
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort(compareCodePoints);
  const fields = keys.filter((key) => object[key] !== undefined);
  return (
    '{' + fields.map((key) => straightforwardString(key) + ':' + straightforwardGoJson(object[key])).join(',') + '}'
  );
}

function straightforwardString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
