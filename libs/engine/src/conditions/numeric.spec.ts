import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '@edict/foundation';
import { check } from '@edict/engine/testing';

type Row = [JsonValue, JsonValue, boolean, boolean, boolean, boolean]; // >, >=, <, <=

describe('GreaterThan / GreaterThanOrEquals / LessThan / LessThanOrEquals', () => {
  it.each<Row>([
    [10, 1, true, true, false, false],
    [1, 1, false, true, false, true],
    [1.5, 1, true, true, false, false],
    [-5, -10, true, true, false, false],
    // string numbers
    ['10', 1, true, true, false, false],
    [100, '10', true, true, false, false],
    ['100', '10', true, true, false, false],
    ['1', '10', false, false, true, true],
    ['1.5', 1, true, true, false, false],
    [1, '1e1', false, false, true, true],
    // quantities, compared exactly
    ['1025', '1Ki', true, true, false, false],
    ['1Gi', '1Mi', true, true, false, false],
    ['1.5Gi', '1536Mi', false, true, false, true],
    ['500m', '1', false, false, true, true],
    ['2Gi', 1, false, false, false, false], // a quantity needs a string value; "2Gi" is no float
    // durations
    ['10h', '1h', true, true, false, false],
    ['1h', '60m', false, true, false, true],
    ['2h', 3600, true, true, false, false],
    [3600, '30m', true, true, false, false],
    [3600, '1h', false, true, false, true],
    ['90s', 90.7, false, true, false, true],
    // semantic versions
    ['1.5.5', '1.5.0', true, true, false, false],
    ['1.10.0', '1.9.0', true, true, false, false],
    ['1.2.3-rc.1', '1.2.3', false, false, true, true],
    ['1.2.3', 'v1.2.3', false, false, false, false],
    ['v1.2.3', '1.2.0', false, false, false, false],
    // not comparable
    ['abc', 'abd', false, false, false, false],
    [true, 1, false, false, false, false],
    [null, 1, false, false, false, false],
    [1, null, false, false, false, false],
    [['1'], 0, false, false, false, false],
    [1, 'abc', false, false, false, false],
  ])('%j vs %j', (key, value, gt, ge, lt, le) => {
    expect(check(key, 'GreaterThan', value)).toBe(gt);
    expect(check(key, 'GreaterThanOrEquals', value)).toBe(ge);
    expect(check(key, 'LessThan', value)).toBe(lt);
    expect(check(key, 'LessThanOrEquals', value)).toBe(le);
  });

  it('matches JS ordering for integers given as numbers or numeric strings (property)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), fc.boolean(), (a, b, asString) => {
        const key = asString ? String(a) : a;
        expect(check(key, 'GreaterThan', b)).toBe(a > b);
        expect(check(key, 'LessThanOrEquals', b)).toBe(a <= b);
      }),
    );
  });

  it('a mis-cased ordering operator is accepted but never holds (Kyverno quirk)', () => {
    expect(check(10, 'greaterthan', 1)).toBe(false);
    expect(check(10, 'GREATERTHAN', 1)).toBe(false);
  });
});

describe('Duration* operators', () => {
  it.each<[JsonValue, JsonValue, boolean, boolean, boolean, boolean]>([
    ['2h', '1h', true, true, false, false],
    ['1h', '60m', false, true, false, true],
    ['1h', 3600, false, true, false, true],
    [7200, '1h', true, true, false, false],
    [1.9, 1, false, true, false, true], // whole seconds
    ['0', '1s', false, false, true, true], // "0" is accepted here
    ['1ms', '1us', true, true, false, false],
    ['abc', '1h', false, false, false, false],
    ['1h', 'abc', false, false, false, false],
    [true, '1h', false, false, false, false],
    ['1h', null, false, false, false, false],
  ])('%j vs %j', (key, value, gt, ge, lt, le) => {
    expect(check(key, 'DurationGreaterThan', value)).toBe(gt);
    expect(check(key, 'DurationGreaterThanOrEquals', value)).toBe(ge);
    expect(check(key, 'DurationLessThan', value)).toBe(lt);
    expect(check(key, 'DurationLessThanOrEquals', value)).toBe(le);
  });
});
