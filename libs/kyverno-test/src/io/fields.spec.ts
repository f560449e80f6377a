import { describe, expect, it } from 'vitest';
import { Fields } from './fields';

describe('Fields', () => {
  it('prefers the exact key and falls back to a case-insensitive match', () => {
    const fields = Fields.of({ Policies: ['a'], policy: 'exact', POLICY: 'other' }, 'f.yaml');
    expect(fields.stringList('policies')).toEqual(['a']);
    expect(fields.string('policy')).toBe('exact');
  });

  it('names file and field path in type errors', () => {
    const fields = Fields.of({ results: [{ resources: 'x' }] }, 'test.yaml');
    const [entry] = fields.objectList('results');
    expect(() => entry.stringList('resources')).toThrow(
      'test.yaml: results[0].resources: expected a list of strings, got string "x"',
    );
  });

  it('names list items that are not strings', () => {
    expect(() => Fields.of({ policies: ['a', 3] }, 'f.yaml').stringList('policies')).toThrow(
      'f.yaml: policies[1]: expected a string, got number 3',
    );
  });

  it('rejects unknown fields by name', () => {
    expect(() => Fields.of({ policies: [], polices: [] }, 'f.yaml').rejectUnknown(['policies'])).toThrow(
      'f.yaml: polices: unknown field',
    );
  });

  it('reports a non-mapping document', () => {
    expect(() => Fields.of(['x'], 'f.yaml')).toThrow('f.yaml: expected a mapping, got a list');
  });

  it('treats missing and null fields alike and requires non-empty strings', () => {
    const fields = Fields.of({ a: null, b: '' }, 'f.yaml');
    expect(fields.string('a')).toBeUndefined();
    expect(fields.stringList('missing')).toEqual([]);
    expect(() => fields.requiredString('b')).toThrow('f.yaml: b: is required');
  });
});
