import { describe, expect, it } from 'vitest';
import { compareCodePoints, sortGoOrder } from './strings';

describe("Go's string order (UTF-8 bytes)", () => {
  it('compares like strings.Compare', () => {
    expect(compareCodePoints('a', 'b')).toBe(-1);
    expect(compareCodePoints('b', 'a')).toBe(1);
    expect(compareCodePoints('a', 'a')).toBe(0);
    expect(compareCodePoints('a', 'ab')).toBe(-1);
    expect(compareCodePoints('\u{1F600}', '\uFF21')).toBe(1);
  });

  it('sorts astral characters after the rest of the BMP, where UTF-16 order puts them before', () => {
    expect(['\u{1F600}', '\uFF21', 'z'].sort()).toEqual(['z', '\u{1F600}', '\uFF21']);
    expect(sortGoOrder(['\u{1F600}', '\uFF21', 'z'])).toEqual(['z', '\uFF21', '\u{1F600}']);
    expect(sortGoOrder(['b', 'a', 'B'])).toEqual(['B', 'a', 'b']);
  });
});
