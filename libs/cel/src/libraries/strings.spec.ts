import { describe, expect, it } from 'vitest';
import { celFailure, evaluateCel } from './testing';

describe("cel-go's strings extension", () => {
  it('indexes strings by code point, not by UTF-16 unit', () => {
    expect(evaluateCel("'a😀b'.charAt(1)")).toBe('😀');
    expect(evaluateCel("'a😀b😀'.indexOf('😀', 2)")).toBe(3n);
    expect(evaluateCel("'a😀b😀'.lastIndexOf('😀')")).toBe(3n);
    expect(evaluateCel("'a😀b😀'.lastIndexOf('😀', 2)")).toBe(1n);
    expect(evaluateCel("'a😀bc'.substring(1, 3)")).toBe('😀b');
    expect(evaluateCel("'😀😁'.split('')")).toEqual(['😀', '😁']);
    expect(evaluateCel("'x😀'.reverse()")).toBe('😀x');
  });

  it('answers as cel-go does at the edges: empty searches, offsets, limits', () => {
    expect(evaluateCel("'abc'.indexOf('', 30)")).toBe(30n);
    expect(evaluateCel("''.indexOf('a')")).toBe(-1n);
    expect(evaluateCel("'abc'.lastIndexOf('')")).toBe(3n);
    expect(celFailure("'abc'.indexOf('a', 3)")).toContain('index out of range: 3');
    expect(celFailure("'abc'.lastIndexOf('a', -1)")).toContain('index out of range: -1');
    expect(celFailure("'abc'.charAt(4)")).toContain('index out of range: 4');
    expect(evaluateCel("'abc'.charAt(3)")).toBe('');
    expect(celFailure("'abc'.substring(2, 1)")).toContain('invalid substring range. start: 2, end: 1');
    expect(celFailure("'abc'.substring(4)")).toContain('index out of range: 4');
    expect(evaluateCel("'a-b-c'.split('-', 2)")).toEqual(['a', 'b-c']);
    expect(evaluateCel("'a-b-c'.split('-', 0)")).toEqual([]);
    expect(evaluateCel("'a-b-c'.replace('-', '+', 1)")).toBe('a+b-c');
    expect(evaluateCel("'ab'.replace('', '.')")).toBe('.a.b.');
  });

  it('changes only ASCII case and trims what Go calls space', () => {
    expect(evaluateCel("'ÀbC'.lowerAscii()")).toBe('Àbc');
    expect(evaluateCel("'àbC'.upperAscii()")).toBe('àBC');
    expect(evaluateCel("' \\u0085\\u3000x\\t'.trim()")).toBe('x');
    expect(evaluateCel("'\\ufeffx'.trim()")).toBe('\ufeffx');
  });

  it('matches on RE2 in both forms', () => {
    expect(evaluateCel("'app-1'.matches('^app-[0-9]+$') && matches('app-1', '^app-')")).toBe(true);
    expect(evaluateCel(`matches('${'a'.repeat(3000)}!', '^(a+)+$')`)).toBe(false);
  });

  it('names the method as written when an overload is missing', () => {
    expect(celFailure("'abc'.indexOf(1)")).toContain("'string.indexOf(int)'");
    expect(celFailure("'abc'.indexOf(1)")).not.toContain('__edict');
  });

  it('quotes strings with CEL escapes', () => {
    expect(evaluateCel('strings.quote("a\\"b\\n\\\\c\\a")')).toBe('"a\\"b\\n\\\\c\\a"');
    expect(evaluateCel("strings.quote('ÿ😀')")).toBe('"ÿ😀"');
  });

  it('formats mixed lists with every verb', () => {
    expect(evaluateCel("'%s-%d'.format(['a', 1])")).toBe('a-1');
    expect(evaluateCel("'%.2f|%f|%e|%.0f|%.0f'.format([3.14159, 1.5, 1234.5, 2.5, 3.5])")).toBe(
      '3.14|1.500000|1.234500e+03|2|4',
    );
    expect(evaluateCel("'%b %o %x %X %x'.format([5, 8, 255, 255, 'hi'])")).toBe('101 10 ff FF 6869');
    expect(evaluateCel("'%s'.format([[1, 'a', 2.5, null, {'b': 1, 'a': [true]}]])")).toBe(
      '[1, a, 2.5, null, {a: [true], b: 1}]',
    );
    expect(evaluateCel("'%s %s'.format([1e21, duration('90s')])")).toBe('1000000000000000000000 90s');
    expect(evaluateCel("'100%%'.format([])")).toBe('100%');
    expect(celFailure("'%d %d'.format([1])")).toContain('index 1 out of range');
    expect(celFailure("'%.5000f'.format([1.0])")).toContain('precision 5000 exceeds 1000');
    expect(celFailure("'%q'.format([1])")).toContain('unrecognized formatting clause "q"');
    expect(celFailure("'%d'.format(['x'])")).toContain('decimal clause can only be used on integers, was given string');
  });

  it('refuses a replacement that would outgrow the string limit before building it', () => {
    expect(
      celFailure("object.replace('a', 'aaaaaaaaaa')", { object: 'a'.repeat(200) }, { maxStringLength: 1000 }),
    ).toBe('a CEL string exceeds the limit of 1000 characters');
  });

  it('charges the meter by the size of the input', () => {
    const long = 'x'.repeat(100_000);
    expect(celFailure("object.indexOf('y') == -1", { object: long }, { maxSteps: 5_000 })).toBe(
      'CEL evaluation exceeded its budget of 5000 steps',
    );
    expect(evaluateCel("object.indexOf('y') == -1", { object: long }, { maxSteps: 20_000 })).toBe(true);
  });
});
