import { describe, expect, it } from 'vitest';
import { copyGaining } from './json';
import type { JsonObject } from './types';

describe('copyGaining', () => {
  const withProtoKey = (): JsonObject => JSON.parse('{"a":1,"__proto__":{"polluted":true},"b":[2]}') as JsonObject;

  it.each([
    ['only overwriting', ['a', 'b']],
    ['gaining a key', ['a', 'c']],
  ])('copies every own key in order, a `__proto__` key as data, when %s', (_, keys) => {
    const source = withProtoKey();
    const copy = copyGaining(source, keys);
    expect(copy).not.toBe(source);
    expect(Object.keys(copy)).toEqual(['a', '__proto__', 'b']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ polluted: true });
    expect(copy['b']).toBe(source['b']); // shallow
    copy['c'] = 3;
    expect(source).not.toHaveProperty('c');
  });
});
