import { describe, expect, it } from 'vitest';
import { goJson, goValue } from './go-format';

describe('goJson', () => {
  it('sorts keys and writes compact JSON like Go', () => {
    expect(goJson({ b: 1, a: [true, null, 'x'] })).toBe('{"a":[true,null,"x"],"b":1}');
  });

  it('escapes HTML-sensitive characters like Go', () => {
    expect(goJson({ q: 'a<b>&c\u2028' })).toBe('{"q":"a\\u003cb\\u003e\\u0026c\\u2028"}');
  });

  it('formats numbers like Go float64', () => {
    expect(goJson(1.5)).toBe('1.5');
    expect(goJson(1e21)).toBe('1e+21');
    expect(goJson(1e-7)).toBe('1e-7');
    expect(goJson(100000)).toBe('100000');
    expect(goJson(-0)).toBe('-0');
  });
});

describe('goValue', () => {
  it('renders values like fmt %v', () => {
    expect(goValue(null)).toBe('<nil>');
    expect(goValue({ b: 2, a: 'x' })).toBe('map[a:x b:2]');
    expect(goValue([1, 'a'])).toBe('[1 a]');
  });
});
