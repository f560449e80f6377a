import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '@edict/foundation';
import { check } from '@edict/engine/testing';

type Row = [JsonValue | undefined, JsonValue | undefined, boolean];

const IPS = ['1.1.1.1', '2.2.2.2', '3.3.3.3'];

describe('In (deprecated)', () => {
  it.each<Row>([
    ['a', ['a', 'b'], true],
    ['c', ['a', 'b'], false],
    [1, [1, 2, 3], true],
    [1.5, [1, 1.5], true],
    [1, ['1', '2'], true],
    ['1', [1, 2], true],
    ['1.1.1.1', ['1*'], true],
    ['1*', ['1.1.1.1'], true], // list elements match either way round
    ['a', 'a', true],
    ['abc', 'a*', true],
    ['a', '["a","b"]', true],
    ['c', '["a","b"]', false],
    ['a', '[1,2]', false],
    ['a', 'b', false],
    [IPS.slice(0, 2), IPS, true],
    [['1.1.1.1', '4.4.4.4'], IPS, false],
    [['1*'], IPS, false], // list keys: exact set membership
    [['a'], 'a', true],
    [['a', 'b'], '["a","b","c"]', true],
    [['a', 1], ['a', '1'], false], // non-string list key elements
    [['a'], ['a', 1], false],
    [true, ['true'], false],
    [null, ['a'], false],
    [undefined, ['a'], false],
    [{ a: 1 }, ['a'], false],
    ['a', null, false],
    ['a', 5, false],
    ['5', '1-10', false], // no ranges for In
  ])('%j In %j → %s', (key, value, expected) => {
    expect(check(key, 'In', value)).toBe(expected);
  });
});

describe('NotIn (deprecated)', () => {
  it.each<Row>([
    ['a', ['a', 'b'], false],
    ['c', ['a', 'b'], true],
    [5, [1, 2, 3], true],
    ['abc', 'a*', false],
    ['c', '["a","b"]', true],
    ['a', 'b', false], // "b" is not a JSON list: type mismatch → false
    [['1.1.1.1', '4.4.4.4'], IPS, true],
    [IPS.slice(0, 2), IPS, false],
    [['a'], 'a', true], // Kyverno's one-element shortcut answers true even for NotIn
    [null, ['a'], false],
    ['a', 5, false],
  ])('%j NotIn %j → %s', (key, value, expected) => {
    expect(check(key, 'NotIn', value)).toBe(expected);
  });
});

describe('AnyIn', () => {
  it.each<Row>([
    [['1.1.1.1', '5.5.5.5'], IPS, true],
    [['4.4.4.4', '5.5.5.5'], IPS, false],
    [['1.1.1.1', '5.5.5.5'], '1.1.1.1', true],
    [[1, 5], [1, 2, 3, 4], true],
    [[5], [1, 2, 3, 4], false],
    [['1*'], IPS, true],
    [['5*'], IPS, false],
    [['1.1.1.1', '2.2.2.2'], ['2*'], true],
    ['1.1.1.1', ['1*'], true],
    ['a', 'a', true],
    ['abc', 'a*', true],
    ['a', 'b', false], // not JSON → stands for itself
    ['a', '["a","b"]', true],
    ['a', '[1,2]', false],
    ['a', '123', false], // valid JSON but not a list → type mismatch
    [true, ['true', 'false'], true],
    [false, '["true"]', false],
    [1.5, ['1.5'], true],
    [1e6, ['1e+06'], true], // Go prints large floats in exponent form
    [1000000, ['1000000'], false],
    // ranges
    ['5', '1-10', true],
    [5, '1-10', true],
    [['5'], '1-3', false],
    [[1, 5], '7-10', false],
    [[1, 5], '0-10', true],
    [[1.002, 1.222], '1.001-10', true],
    ['512Mi', '256Mi-1Gi', true],
    ['2Gi', '256Mi-1Gi', false],
    ['90s', '1m-2m', true],
    ['-5', '-10--1', true],
    // numbers as the value of a list key
    [[0, 1], 0, true],
    [[1, 2], 0, false],
    // empty and unsupported
    [[], IPS, false],
    [null, IPS, false],
    [{ a: 'b' }, ['a'], false],
    ['a', 5, false],
    ['a', null, false],
  ])('%j AnyIn %j → %s', (key, value, expected) => {
    expect(check(key, 'AnyIn', value)).toBe(expected);
  });
});

describe('AllIn', () => {
  it.each<Row>([
    [['1.1.1.1', '2.2.2.2'], IPS, true],
    [['1.1.1.1', '5.5.5.5'], IPS, false],
    [['1.1.1.1', '5.5.5.5'], ['1.1.1.1'], false],
    [[1, 2], [1, 2, 3, 4], true],
    [[1, 5], [1, 2, 3, 4], false],
    [['1*'], IPS, true],
    [['2.1.1.1', '2.2.2.2'], ['2*'], true],
    [['1.1.1.1', '5.5.5.5'], '5.5.5.5', false],
    [['a', 'b'], '["a","b","c"]', true],
    [5, '1-10', true],
    [[3, 2], '1-10', true],
    [[3, 2], '5-10', false],
    ['a', ['a'], true],
    [true, 'true', true],
    [[], IPS, true], // vacuously true
    [null, IPS, false],
  ])('%j AllIn %j → %s', (key, value, expected) => {
    expect(check(key, 'AllIn', value)).toBe(expected);
  });
});

describe('AnyNotIn', () => {
  it.each<Row>([
    [1, [1, 2, 3], false],
    [5, [1, 2, 3], true],
    ['1', ['1', '2'], false],
    [['1.1.1.1', '2.2.2.2'], IPS, false],
    [['1.1.1.1', '4.4.4.4'], IPS, true],
    [['5.5.5.5', '4.4.4.4'], '4.4.4.4', true],
    [['1*', '3*', '5*'], IPS, true],
    [['1.1.1.1', '2.2.2.2', '5.5.5.5'], ['2*'], true],
    [['2.2*'], ['2.2.2.2'], false],
    [['a'], 'a', false],
    ['5', '1-3', true],
    [[1, 5, 11], '0-10', true],
    [[1, 5, 7], '0-10', false],
    [[80, 443], 0, true],
    [[0], 0, false],
    ['a', 'b', true],
    ['a', '123', false], // type mismatch → false, not "not in"
    [[], ['a'], false],
    [null, ['a'], false],
  ])('%j AnyNotIn %j → %s', (key, value, expected) => {
    expect(check(key, 'AnyNotIn', value)).toBe(expected);
  });
});

describe('AllNotIn', () => {
  it.each<Row>([
    [1, [1, 2, 3], false],
    [5, [1, 2, 3], true],
    [5.5, [1, 1.5, 2, 3], true],
    [['1.1.1.1', '4.4.4.4'], IPS, false],
    [['5.5.5.5', '4.4.4.4'], IPS, true],
    [['7*', '6*', '5*'], IPS, true],
    [['1*', '2*'], IPS, false],
    [['1.1.1.1', '3.3.3.3', '5.5.5.5'], ['2*'], true],
    [['1.1.1.1', '4.4.4.4'], '2.2.2.2', true],
    [5.5, '6-10', true],
    ['5', '1-6', false],
    [[3, 2], '5-10', true],
    [[2, 6], '5-10', false],
    // a boolean key against a ConfigMap-style JSON list (as in Kyverno's CLI tests)
    [true, '["false", "false", "false"]', true],
    [true, '["true", "false", "false"]', false],
    [['livenessProbe', 'startupProbe'], ['readinessProbe', 'image'], true],
    [[], ['a'], true],
    [null, ['a'], false],
  ])('%j AllNotIn %j → %s', (key, value, expected) => {
    expect(check(key, 'AllNotIn', value)).toBe(expected);
  });
});

describe('In-family properties', () => {
  const scalar = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -50, max: 50 }));
  const list = fc.array(scalar, { maxLength: 6 });
  const stringKey = fc.string({ maxLength: 6 }).filter((s) => !s.includes('*') && !s.includes('?'));

  it('AnyIn and AnyNotIn are complementary for a scalar key and a list value', () => {
    fc.assert(
      fc.property(scalar, list, (key, value) => {
        expect(check(key, 'AnyNotIn', value)).toBe(!check(key, 'AnyIn', value));
        expect(check(key, 'AllNotIn', value)).toBe(!check(key, 'AllIn', value));
      }),
    );
  });

  it('In and NotIn are complementary for a plain string key and a string list', () => {
    fc.assert(
      fc.property(stringKey, fc.array(fc.string({ maxLength: 6 }), { maxLength: 6 }), (key, value) => {
        expect(check(key, 'NotIn', value)).toBe(!check(key, 'In', value));
      }),
    );
  });

  it('AllIn implies AnyIn for a non-empty list key; AllNotIn implies AnyNotIn', () => {
    fc.assert(
      fc.property(fc.array(scalar, { minLength: 1, maxLength: 5 }), list, (key, value) => {
        if (check(key, 'AllIn', value)) expect(check(key, 'AnyIn', value)).toBe(true);
        if (check(key, 'AllNotIn', value)) expect(check(key, 'AnyNotIn', value)).toBe(true);
      }),
    );
  });

  it('a JSON-encoded list behaves like the list itself', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{1,4}$/), { minLength: 2, maxLength: 5 }),
        fc.array(fc.stringMatching(/^[a-z]{1,4}$/), { maxLength: 5 }),
        (key, value) => {
          for (const op of ['AnyIn', 'AllIn', 'AnyNotIn', 'AllNotIn', 'In', 'NotIn']) {
            expect(check(key, op, JSON.stringify(value))).toBe(check(key, op, value));
          }
        },
      ),
    );
  });
});
