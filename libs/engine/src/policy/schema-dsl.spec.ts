import { describe, expect, it } from 'vitest';
import { type JsonValue, formatPath, parsePath, type PathSegment } from '@edict/foundation';
import { any, arr, bool, either, int, lazy, map, obj, str, validate, type Schema } from './schema-dsl';

function problems(schema: Schema, value: JsonValue): string[] {
  const out: string[] = [];
  validate(schema, value, [], (path, message, severity) =>
    out.push(`${severity ?? 'error'} ${formatPath(path)}: ${message}`),
  );
  return out;
}

describe('schema language', () => {
  it('treats null as absent, except for required fields', () => {
    const s = obj({ a: str(), b: int() }, { required: ['b'] });
    expect(problems(s, { a: null, b: 1 })).toEqual([]);
    expect(problems(s, { b: null })).toEqual(['error b: required field is missing']);
  });

  it('reports type mismatches with what was found', () => {
    const s = obj({ a: str(), b: bool(), c: int({ min: 1, max: 3 }), d: arr(str()) });
    expect(problems(s, { a: 1, b: 'true', c: 1.5, d: {} })).toEqual([
      'error a: expected string, got number 1',
      'error b: expected boolean, got string "true"',
      'error c: expected integer, got number 1.5',
      'error d: expected array, got object',
    ]);
    expect(problems(s, { c: 4 })).toEqual(['error c: must be between 1 and 3, got 4']);
  });

  it('checks map values, unknown fields and open objects', () => {
    expect(problems(map(str()), { x: 'a', y: 2 })).toEqual(['error y: expected string, got number 2']);
    expect(problems(obj({ a: any() }), { a: [1], b: 1 })).toEqual(['error b: unknown field "b"']);
    expect(problems(obj({}, { open: true }), { b: 1 })).toEqual([]);
  });

  it('accepts either an array or an object form', () => {
    const s = either(arr(int()), obj({ n: int() }));
    expect(problems(s, [1])).toEqual([]);
    expect(problems(s, { n: 1 })).toEqual([]);
    expect(problems(s, 'x')).toEqual(['error : expected object or array, got string "x"']);
  });

  it('supports recursive schemas', () => {
    const node: Schema = obj({ name: str(), children: arr(lazy(() => node)) });
    expect(problems(node, { name: 'a', children: [{ name: 'b', children: [{ name: 3 }] }] })).toEqual([
      'error children[0].children[0].name: expected string, got number 3',
    ]);
  });

  it('runs cross-field checks with their own severity', () => {
    const s = obj({ a: int() }, { check: (v, path, report) => v.a === 0 && report([...path, 'a'], 'zero', 'warning') });
    expect(problems(arr(s), [{ a: 0 }])).toEqual(['warning [0].a: zero']);
  });
});

describe('field paths', () => {
  it('formats and parses paths, quoting keys that are not identifiers', () => {
    const cases: [PathSegment[], string][] = [
      [['spec', 'rules', 1, 'validate'], 'spec.rules[1].validate'],
      [['metadata', 'annotations', 'kyverno.io/x'], 'metadata.annotations["kyverno.io/x"]'],
      [['a', '=(b)'], 'a["=(b)"]'],
      [[0, 'x'], '[0].x'],
    ];
    for (const [segments, text] of cases) {
      expect(formatPath(segments)).toBe(text);
      expect(parsePath(text)).toEqual(segments);
    }
  });
});
