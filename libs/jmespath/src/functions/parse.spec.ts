import { describe, expect, it } from 'vitest';
import { jp } from '@edict/jmespath/testing';

describe('parse functions', () => {
  it('parse_json decodes any JSON value', () => {
    expect(jp(`parse_json('{"a": [1, "x", null]}').a`)).toEqual([1, 'x', null]);
    expect(jp(`parse_json('"text"')`)).toBe('text');
    expect(jp(`parse_json('12.5')`)).toBe(12.5);
    expect(jp('parse_json(@).b', '{"b": true}')).toBe(true);
  });

  it('parse_json errors', () => {
    expect(() => jp(`parse_json('')`)).toThrow('unexpected end of JSON input');
    expect(() => jp(`parse_json('{bad')`)).toThrow(/invalid JSON/);
    expect(() => jp('parse_json(`1`)')).toThrow(/type/);
  });

  it('parse_yaml uses YAML 1.1 scalars like go-yaml v2', () => {
    const doc = 'a: yes\nb: off\nc: 0777\nd: 2001-12-14\ne: 1:30\nf: ~\ng: [1, two]\nh: "quoted"\n';
    expect(jp('parse_yaml(@)', doc)).toEqual({
      a: true,
      b: false,
      c: 511,
      d: '2001-12-14',
      e: '1:30',
      f: null,
      g: [1, 'two'],
      h: 'quoted',
    });
  });

  it('parse_yaml: merge keys, non-string keys, first document only, empty input', () => {
    expect(jp('parse_yaml(@)', 'base: &b {x: 1}\nderived:\n  <<: *b\n  z: 2\n')).toEqual({
      base: { x: 1 },
      derived: { x: 1, z: 2 },
    });
    expect(jp('parse_yaml(@)', 'y: n\n')).toEqual({ true: false }); // YAML 1.1 reads y/n as booleans, keys included
    expect(jp('parse_yaml(@)', '1: one\ntrue: yes\n')).toEqual({ '1': 'one', true: true });
    expect(jp('parse_yaml(@)', 'a: 1\n---\na: 2\n')).toEqual({ a: 1 });
    expect(jp("parse_yaml('')")).toBeNull();
    expect(jp("parse_yaml('- a\n- b')")).toEqual(['a', 'b']);
  });

  it('parse_yaml errors', () => {
    expect(() => jp("parse_yaml('a: [')")).toThrow(/^yaml: /);
    expect(() => jp("parse_yaml('a: .inf')")).toThrow('json: unsupported value: +Inf');
  });
});
