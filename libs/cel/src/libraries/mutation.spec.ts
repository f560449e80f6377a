import { describe, expect, it } from 'vitest';
import { CelJsonPatch, CelObject, compileCel, objectTypeNameErrors, type CelVariables } from '../index';

const withPatchTypes: CelVariables = { params: false, authorizer: true, patchTypes: true };

function evaluate(source: string, result: 'Object' | 'list<JSONPatch>' | 'any', activation = {}): unknown {
  return compileCel(source, withPatchTypes, result).evaluate(activation);
}

function compileError(source: string, variables: CelVariables = withPatchTypes, result: 'Object' | 'any' = 'any') {
  try {
    compileCel(source, variables, result);
  } catch (error) {
    return (error as Error).message;
  }
  return 'compiled';
}

describe('Kubernetes mutation types in CEL', () => {
  it('builds Object values with their nested type names and leaves unset optional fields out', () => {
    const value = evaluate(
      "Object{metadata: Object.metadata{labels: {'team': object.team}, ?annotations: optional.none()}}",
      'Object',
      { object: { team: 'a' } },
    ) as CelObject;
    expect(value).toBeInstanceOf(CelObject);
    expect(value.objectTypeName).toBe('Object');
    const metadata = (value as unknown as { metadata: CelObject }).metadata;
    expect(metadata.objectTypeName).toBe('Object.metadata');
    expect(Object.keys(metadata)).toEqual(['labels']);
    expect({ ...(metadata as unknown as { labels: object }).labels }).toEqual({ team: 'a' });
  });

  it('selects fields of a constructed object', () => {
    expect(evaluate('Object{spec: Object.spec{replicas: 3}}.spec.replicas', 'any')).toBe(3n);
  });

  it('builds JSONPatch operations and escapes keys as JSON Pointer tokens', () => {
    const [patch] = evaluate(
      "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/a~b'), value: 'x'}]",
      'list<JSONPatch>',
    ) as CelJsonPatch[];
    expect(patch).toBeInstanceOf(CelJsonPatch);
    expect(patch).toMatchObject({ op: 'add', path: '/metadata/labels/example.com~1a~0b', from: '', value: 'x' });
    const [removal] = evaluate("[JSONPatch{op: 'remove', path: '/spec'}]", 'list<JSONPatch>') as CelJsonPatch[];
    expect(removal?.value).toBeUndefined();
  });

  it('reports nested type names that do not follow the field path', () => {
    const value = evaluate('Object{spec: Object.spec{selector: Object.spec.wrong{}}}', 'Object');
    expect(objectTypeNameErrors(value)).toEqual([
      'unexpected type name "Object.spec.wrong", expected "Object.spec.selector", which matches field name path from root Object type',
    ]);
    const lists = evaluate('Object{spec: Object.spec{containers: [Object.spec.containers{name: "a"}]}}', 'Object');
    expect(objectTypeNameErrors(lists)).toEqual([]);
  });

  it('rejects what Kubernetes rejects at compile time', () => {
    expect(compileError('JSONPatch{op: 1}')).toContain("field 'op' of type 'JSONPatch' expects string");
    expect(compileError("JSONPatch{foo: 'x'}")).toContain("undefined field 'foo' of type 'JSONPatch'");
    expect(compileError('JSONPatch.x{}')).toContain("undeclared reference to type 'JSONPatch.x'");
    expect(compileError('Foo{a: 1}')).toContain("undeclared reference to type 'Foo'");
    expect(compileError('Object{a: 1, a: 2}')).toContain("field 'a' is set twice");
    expect(compileError("{'a': 1}", withPatchTypes, 'Object')).toContain('must evaluate to Object');
  });

  it('is not available without the patchTypes option', () => {
    expect(compileError('Object{a: 1}', { params: false, authorizer: true })).toContain(
      "undeclared reference to type 'Object'",
    );
    expect(compileError("jsonpatch.escapeKey('a')", { params: false, authorizer: true })).not.toBe('compiled');
  });
});
