import { describe, expect, it } from 'vitest';
import { any, arr, bool, int, intOrString, lazy, map, obj, str, type Schema } from './schema-dsl';
import { crdFieldErrors } from './schema-field-errors';

const errors = (schema: Schema, value: Parameters<typeof crdFieldErrors>[1]) =>
  crdFieldErrors(schema, value).map((e) => (e.field ? `${e.field}: ${e.message}` : e.message));

describe("crdFieldErrors, in kube-apiserver's words", () => {
  const spec = obj(
    {
      action: str({ enum: ['audit', 'enforce', 'Audit', 'Enforce'] }),
      background: bool(),
      timeout: int({ min: 1, max: 30 }),
      name: str({ maxLength: 3 }),
      port: intOrString(),
      rules: arr(obj({ name: str(), match: obj({ kinds: arr(str()) }) }, { required: ['match'] })),
    },
    { required: [] },
  );
  const root = obj({ spec });

  it('an enum value', () => {
    expect(errors(root, { spec: { action: 'Enforse' } })).toEqual([
      'spec.action: Unsupported value: "Enforse": supported values: "audit", "enforce", "Audit", "Enforce"',
    ]);
  });

  it('a wrong type, named by its JSON type', () => {
    expect(errors(root, { spec: { background: 'yes', timeout: 1.5, port: true } })).toEqual([
      'spec.background: Invalid value: "string": spec.background in body must be of type boolean: "string"',
      'spec.timeout: Invalid value: "number": spec.timeout in body must be of type integer: "number"',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    ]);
  });

  it('a missing required field (null counts as missing, as kube prunes it)', () => {
    expect(errors(root, { spec: { rules: [{ name: 'a' }, { name: 'b', match: null }] } })).toEqual([
      'spec.rules[0].match: Required value',
      'spec.rules[1].match: Required value',
    ]);
  });

  it('an undeclared field, as strict field validation words it', () => {
    expect(errors(root, { spec: { rules: [{ match: { kinds: [], kind: 'Pod' } }] } })).toEqual([
      'unknown field "spec.rules[0].match.kind"',
    ]);
  });

  it('bounds and lengths', () => {
    expect(errors(root, { spec: { timeout: 31, name: 'abcd' } })).toEqual([
      'spec.timeout: Invalid value: 31: spec.timeout in body should be less than or equal to 30',
      'spec.name: Too long: may not be more than 3 bytes',
    ]);
  });

  it('stops where the CRD does: free-form values, open objects, maps, a recursion', () => {
    const node: Schema = obj({ name: str(), children: arr(lazy(() => node)) });
    expect(errors(node, { name: 'a', children: [{ name: 3, other: true }] })).toEqual([]);
    expect(
      errors(obj({ a: any(), b: obj({}, { open: true }), c: map(int()) }), { a: 1, b: { x: 1 }, c: { y: 2 } }),
    ).toEqual([]);
    expect(errors(map(int()), { y: 'no' })).toEqual([
      'y: Invalid value: "string": y in body must be of type integer: "string"',
    ]);
  });
});
