import { describe, expect, it } from 'vitest';
import { jp } from '@edict/jmespath/testing';

describe('arithmetic functions', () => {
  it('add / subtract: same-kind operands only', () => {
    expect(jp('add(`12`, `13`)')).toBe(25);
    expect(jp("add('12Ki', '13Ki')")).toBe('25Ki');
    expect(jp("add('12Ki', '13')")).toBe('12301');
    expect(jp("add('1Gi', '512Mi')")).toBe('1536Mi');
    expect(jp("add('500m', '500m')")).toBe('1');
    expect(jp("add('12s', '13s')")).toBe('25s');
    expect(jp("add('1h', '30m')")).toBe('1h30m0s');
    expect(jp("subtract('12Ki', '13Ki')")).toBe('-1Ki');
    expect(jp("subtract('12s', '13s')")).toBe('-1s');
    expect(jp('subtract(`12`, `13`)')).toBe(-1);
  });

  it('reads strings that are both quantity and duration by the other operand', () => {
    expect(jp("add('1h', '1m')")).toBe('1h1m0s'); // "1m" = one minute next to a duration
    expect(jp("add('1m', '1m')")).toBe('2m'); // both ambiguous: quantities (milli)
    expect(jp("add('0', '1h')")).toBe('1h0m0s');
  });

  it('add / subtract: mismatched or invalid operands', () => {
    expect(() => jp("add(`12`, '13Ki')")).toThrow("JMESPath function 'add': Types mismatch");
    expect(() => jp("add('12Ki', `13`)")).toThrow("JMESPath function 'add': Types mismatch");
    expect(() => jp("add('12s', '13Ki')")).toThrow('Types mismatch');
    expect(() => jp("add('12', '13s')")).toThrow('Types mismatch');
    expect(() => jp("subtract('12s', `13`)")).toThrow("JMESPath function 'subtract': Types mismatch");
    expect(() => jp("add('abc', `1`)")).toThrow("JMESPath function 'add': invalid operand");
    expect(() => jp('add(`null`, `1`)')).toThrow("JMESPath function 'add': invalid operand");
    expect(() => jp('add(`true`, `1`)')).toThrow('invalid operand');
  });

  it('sum: folds add over the array', () => {
    expect(jp('sum([`12`, `13`, `1`, `4`])')).toBe(30);
    expect(jp("sum(['12Ki', '13Ki', '1Ki', '4Ki'])")).toBe('30Ki');
    expect(jp("sum(['12s', '13s'])")).toBe('25s');
    expect(jp("sum(['12Ki'])")).toBe('12Ki');
    expect(jp("sum(['not a number'])")).toBe('not a number'); // one element is returned unchecked
    expect(() => jp('sum(`[]`)')).toThrow("JMESPath function 'sum': at least one element in the array is required");
    expect(() => jp("sum([`12`, '13Ki'])")).toThrow("JMESPath function 'sum': Types mismatch");
    expect(() => jp("sum('12')")).toThrow(/array/);
  });

  it('multiply', () => {
    expect(jp("multiply('12Ki', `2`)")).toBe('24Ki');
    expect(jp("multiply(`2.5`, '12Ki')")).toBe('30Ki');
    expect(jp("multiply(`2.5`, '12')")).toBe('30');
    expect(jp("multiply('100m', `3`)")).toBe('300m');
    expect(jp("multiply('12s', `2`)")).toBe('24s');
    expect(jp("multiply(`2.5`, '40s')")).toBe('1m40s');
    expect(jp('multiply(`2.5`, `2.5`)')).toBe(6.25);
    expect(() => jp("multiply('12Ki', '12Ki')")).toThrow("JMESPath function 'multiply': Types mismatch");
    expect(() => jp("multiply('12s', '12s')")).toThrow('Types mismatch');
  });

  it('divide', () => {
    expect(jp("divide('512M', '256M')")).toBe(2);
    expect(jp("divide('128M', '256M')")).toBe(0.5);
    expect(jp("divide('8', '3')")).toBe(8 / 3);
    expect(jp("divide('12Ki', '200')")).toBe(61.44);
    expect(jp("divide('12Ki', `3`)")).toBe('4Ki');
    expect(jp("divide('10', `3`)")).toBe('3'); // truncated at the operands' decimal scale
    expect(jp("divide('10.0', `4`)")).toBe('2500m');
    expect(jp("divide('1k', `3`)")).toBe('333');
    // Kyverno reads the scalar back through %v: 1e6 is "1e+06", scale -6, so the quotient 10 rounds down to 0.
    expect(jp("divide('10M', `1000000`)")).toBe('0');
    expect(jp("divide('10M', `100000`)")).toBe('100');
    expect(jp("divide('12s', `3`)")).toBe('4s');
    expect(jp("divide('12s', '5s')")).toBe(2.4);
    expect(jp('divide(`14`, `3`)')).toBe(4.666666666666667);
    expect(() => jp("divide('12Ki', '2s')")).toThrow("JMESPath function 'divide': Types mismatch");
    expect(() => jp("divide(`14`, '5Ki')")).toThrow('Types mismatch');
  });

  it('divide: zero divisors are errors', () => {
    for (const expression of [
      'divide(`14`, `0`)',
      "divide('4Ki', `0`)",
      "divide('4Ki', '0Ki')",
      "divide('4s', `0`)",
      "divide('4s', '0s')",
      "divide('4', '0')",
    ]) {
      expect(() => jp(expression)).toThrow("JMESPath function 'divide': Zero divisor passed");
    }
  });

  it('modulo: integers only', () => {
    expect(jp('modulo(`13`, `5`)')).toBe(3);
    expect(jp('modulo(`-13`, `5`)')).toBe(-3);
    expect(jp("modulo('12Ki', '5Ki')")).toBe('2Ki');
    expect(jp("modulo('13s', '2s')")).toBe('1s');
    expect(() => jp('modulo(`14`, `1.5`)')).toThrow(
      "JMESPath function 'modulo': Non-integer argument(s) passed for modulo",
    );
    expect(() => jp("modulo('4.5', '1')")).toThrow('Non-integer');
    expect(() => jp('modulo(`14`, `0`)')).toThrow("JMESPath function 'modulo': Zero divisor passed");
    expect(() => jp("modulo('4s', '0s')")).toThrow('Zero divisor passed');
    expect(() => jp("modulo('13s', `2`)")).toThrow("JMESPath function 'modulo': Types mismatch");
  });

  it('round: half away from zero to N decimals', () => {
    expect(jp('round(`3.14159`, `2`)')).toBe(3.14);
    expect(jp('round(`2.5`, `0`)')).toBe(3);
    expect(jp('round(`-2.5`, `0`)')).toBe(-3);
    expect(() => jp('round(`1.5`, `1.5`)')).toThrow(
      "JMESPath function 'round': Non-integer argument(s) passed for round off",
    );
    expect(() => jp('round(`1.5`, `-1`)')).toThrow(/out of bounds/);
    expect(() => jp("round('1.5', `1`)")).toThrow(/type/);
  });
});
