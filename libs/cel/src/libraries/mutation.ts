import type { Environment } from '@marcbachmann/cel-js';
import { CONSTRUCTIBLE, type ConstructibleType } from '../language/objects';
import { celError } from './errors';
import { namespaceFunction } from './namespace';

/**
 * Kubernetes' mutation types (MutatingAdmissionPolicy, and Kyverno's MutatingPolicy which reuses
 * them): `Object{...}` with the `Object.<field>...` type names of its nested parts, built without a
 * schema (every field dyn, as Kubernetes' DynamicTypeResolver does), `JSONPatch{op, path, from, value}`,
 * and `jsonpatch.escapeKey`. Turned on by the `patchTypes` option of compileCel.
 */
export function registerMutationTypes(env: Environment): void {
  env.registerType(OBJECT_TYPE, CelObject);
  env.registerType(JSON_PATCH_TYPE, CelJsonPatch);
  // RFC 6901: `~` is written `~0` and `/` `~1` in a JSON Pointer token.
  namespaceFunction(env, 'jsonpatch.escapeKey(string): string', (key: string) =>
    key.replaceAll('~', '~0').replaceAll('/', '~1'),
  );
}

export const OBJECT_TYPE = 'Object';
export const JSON_PATCH_TYPE = 'JSONPatch';

/** Names a field may not have: they would change what the value is in JavaScript. */
const FORBIDDEN_FIELDS = new Set(['__proto__', 'constructor']);

/**
 * A value built by `Object{...}` or `Object.a.b{...}`: its fields are own enumerable properties
 * (what cel-js reads on field selection and JSON conversion walks); the type name is kept aside.
 */
export class CelObject {
  readonly #typeName: string;

  constructor(typeName: string, fields: ReadonlyMap<string, unknown>) {
    this.#typeName = typeName;
    for (const [name, value] of fields) {
      if (FORBIDDEN_FIELDS.has(name)) throw celError(`${typeName}: field name '${name}' is not supported`);
      Object.defineProperty(this, name, { value, enumerable: true, writable: false, configurable: false });
    }
  }

  /** `Object`, `Object.spec`, `Object.spec.template`, ... as written in the expression. */
  get objectTypeName(): string {
    return this.#typeName;
  }

  static readonly [CONSTRUCTIBLE]: ConstructibleType = {
    dottedNames: true,
    fieldType: () => 'dyn',
    construct: (typeName, fields) => new CelObject(typeName, fields),
  };
}

const PATCH_FIELDS: Readonly<Record<string, 'string' | 'dyn'>> = {
  op: 'string',
  path: 'string',
  from: 'string',
  value: 'dyn',
};

/** A `JSONPatch{op, path, from, value}` operation; `value` is undefined when not set. */
export class CelJsonPatch {
  readonly op: string;
  readonly path: string;
  readonly from: string;
  readonly value: unknown;

  constructor(fields: ReadonlyMap<string, unknown>) {
    for (const [name, value] of fields) {
      if (!(name in PATCH_FIELDS)) throw celError(`unexpected JSONPatch field: ${name}`);
      if (PATCH_FIELDS[name] === 'string' && typeof value !== 'string')
        throw celError(`JSONPatch field '${name}' must be a string`);
    }
    this.op = (fields.get('op') as string | undefined) ?? '';
    this.path = (fields.get('path') as string | undefined) ?? '';
    this.from = (fields.get('from') as string | undefined) ?? '';
    this.value = fields.get('value');
  }

  static readonly [CONSTRUCTIBLE]: ConstructibleType = {
    dottedNames: false,
    fieldType: (field) => PATCH_FIELDS[field],
    construct: (_typeName, fields) => new CelJsonPatch(fields),
  };
}

/**
 * Type names of nested Object values that do not follow the field path from the root
 * (`Object{spec: Object.spec{selector: Object.spec.wrong{}}}`), as Kubernetes checks before
 * applying: a child under field `f` of `T` must be `T.f`; lists and maps in between are unnamed.
 */
export function objectTypeNameErrors(value: unknown, path: string = (value as CelObject).objectTypeName): string[] {
  const errors: string[] = [];
  const visit = (item: unknown, expected: string, depth: number): void => {
    if (depth > 100 || item === null || typeof item !== 'object') return;
    if (item instanceof CelObject) {
      if (item.objectTypeName !== expected) {
        errors.push(
          `unexpected type name "${item.objectTypeName}", expected "${expected}", which matches field name path from root Object type`,
        );
      }
      for (const [name, child] of Object.entries(item)) visit(child, `${expected}.${name}`, depth + 1);
      return;
    }
    if (Array.isArray(item)) {
      for (const child of item) visit(child, expected, depth + 1);
      return;
    }
    if (item instanceof Map) {
      for (const child of item.values()) visit(child, expected, depth + 1);
      return;
    }
    if (Object.getPrototypeOf(item) === null)
      for (const child of Object.values(item)) visit(child, expected, depth + 1);
  };
  visit(value, path, 0);
  return errors;
}
