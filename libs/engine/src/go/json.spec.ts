import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goJson } from './json';

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
});
