import { describe, expect, it } from 'vitest';
import type { JsonValue } from '@edict/foundation';
import { check } from '@edict/engine/testing';

type Row = [JsonValue | undefined, JsonValue | undefined, boolean];

describe('Equals', () => {
  it.each<Row>([
    // same-type scalars
    ['string', 'string', true],
    ['string', 'other', false],
    [1, 1, true],
    [1, 2, false],
    [1.5, 1.5, true],
    [true, true, true],
    [true, false, false],
    // type mixes
    [1, '1', true],
    [1, '1.0', true],
    [1.5, '1.5', true],
    [1, '1e0', true],
    [1, 'one', false],
    ['1', 1, false], // a quantity key only compares with strings
    ['abc', 1, false],
    [true, 'true', false],
    ['true', true, false],
    [1, true, false],
    // wildcards live in the value only
    ['nginx:1.25', 'nginx:*', true],
    ['nginx:*', 'nginx:1.25', false],
    ['kube-a', 'kube-?', true],
    ['1.5.2', '1.5.*', true],
    ['Nginx', 'nginx', false],
    // quantities
    ['1Gi', '1024Mi', true],
    ['1024', '1Ki', true],
    ['100m', '0.1', true],
    ['1Gi', '1G', false],
    ['1', '1*', false], // quantity key, non-quantity value: no wildcard fallback
    ['m', 'm*', false], // "m" is a quantity (zero milli)
    // durations
    ['1h', '60m', true],
    ['1h', '3600s', true],
    ['1h', 3600, true],
    ['2h', 3600, false],
    ['90s', 90.9, true], // numbers become whole seconds
    ['1m', '0.001', true], // "0.001" is no duration, so both are read as quantities
    ['0', '0s', false], // the bare string "0" is not treated as a duration
    [3600, '1h', false], // a number key is never read as a duration by Equals
    // structures
    [{ a: 'b' }, { a: 'b' }, true],
    [{ a: 'b', c: [1, 2] }, { c: [1, 2], a: 'b' }, true],
    [{ a: 'b' }, { a: 'c' }, false],
    [['a', 'b'], ['a', 'b'], true],
    [['a', 'b'], ['b', 'a'], false],
    [['a'], 'a', false],
    [{ a: 'b' }, 'x', false],
    // null / missing
    [null, null, false],
    [undefined, undefined, false],
    [null, '', false],
    ['', '', true],
    ['', null, false],
  ])('%j Equals %j → %s', (key, value, expected) => {
    expect(check(key, 'Equals', value)).toBe(expected);
    expect(check(key, 'Equal', value)).toBe(expected);
  });
});

describe('NotEquals', () => {
  it.each<Row>([
    ['string', 'string', false],
    ['string', 'other', true],
    [1, 1, false],
    [1, 2, true],
    [1, '1', false],
    [1, 'one', true],
    [1, true, true],
    [true, false, true],
    [true, 'true', true],
    ['nginx:1.25', 'nginx:*', false],
    ['1Gi', '1024Mi', false],
    ['10Gi', '1024Mi', true],
    ['1h', '60m', false],
    ['1h', 3600, false],
    ['1.5.2', '1.5.*', false],
    ['1.5.2', '1.5.5', true],
    ['abc', 1, true],
    ['1', 1, true],
    [{ a: 'b' }, { a: 'c' }, true],
    [{ a: 'b' }, 'x', true],
    [['a'], ['a'], false],
    [['a'], 'a', true],
    // Kyverno quirks: neither Equals nor NotEquals holds
    ['1', 'abc', false],
    ['500m', 'x*', false],
    [null, 'x', false],
    [null, null, false],
    [undefined, 'DELETE', false],
  ])('%j NotEquals %j → %s', (key, value, expected) => {
    expect(check(key, 'NotEquals', value)).toBe(expected);
    expect(check(key, 'NotEqual', value)).toBe(expected);
  });
});
