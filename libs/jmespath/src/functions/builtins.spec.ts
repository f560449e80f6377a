import { describe, expect, it } from 'vitest';
import { jp } from '@edict/jmespath/testing';

describe('standard functions as Kyverno (Go) evaluates them', () => {
  it('to_number: Go float parsing, null when not a number', () => {
    expect(jp("to_number('2400')")).toBe(2400);
    expect(jp("to_number('1.5e3')")).toBe(1500);
    expect(jp("to_number('')")).toBeNull();
    expect(jp("to_number(' 12')")).toBeNull();
    expect(jp("to_number('0x10')")).toBeNull();
    expect(jp("to_number('0x1p-2')")).toBe(0.25);
    expect(jp("to_number('1_000')")).toBe(1000);
    expect(jp("to_number('1e400')")).toBeNull();
    expect(jp("to_number('abc')")).toBeNull();
    expect(jp('to_number(`true`)')).toBeNull();
    expect(jp('to_number(`7`)')).toBe(7);
  });

  it('to_string: Go JSON (sorted keys, HTML-safe escaping)', () => {
    expect(jp('to_string(@)', { b: 1, a: '<&>' })).toBe('{"a":"\\u003c\\u0026\\u003e","b":1}');
    expect(jp("to_string('s')")).toBe('s');
    expect(jp('to_string(`[1, null, true]`)')).toBe('[1,null,true]');
  });

  it('sort: numbers numerically, strings by bytes, mixed is an error', () => {
    expect(jp('sort(`[10, 9, 1]`)')).toEqual([1, 9, 10]);
    expect(jp("sort(['b', 'B', 'a'])")).toEqual(['B', 'a', 'b']);
    expect(jp('sort(`[]`)')).toEqual([]);
    expect(() => jp("sort([`1`, 'a'])")).toThrow(/sort/);
  });

  it('contains: substring for strings, deep equality for arrays', () => {
    expect(jp("contains('abc', 'b')")).toBe(true);
    expect(jp("contains('abc', `1`)")).toBe(false);
    expect(jp('contains(`[{"a": 1}]`, `{"a": 1}`)')).toBe(true);
    expect(jp("contains(['*.example.com'], '*.example.com')")).toBe(true);
    expect(() => jp('contains(`1`, `1`)')).toThrow(/type/);
  });

  it('length, keys, max and friends come from the runtime', () => {
    expect(jp("length('äb')")).toBe(2);
    expect(jp('length(@)', { a: 1, b: 2 })).toBe(2);
    expect(jp("max([to_number('3'), to_number('2400')])")).toBe(2400);
    expect(jp("starts_with('nginx:1', 'nginx')")).toBe(true);
    expect(jp("join(',', ['a', 'b'])")).toBe('a,b');
  });
});
