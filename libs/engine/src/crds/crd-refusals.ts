/**
 * What kube-apiserver refuses when a custom resource of Edict's CRDs is written with kubectl
 * (fieldValidation=Strict): undeclared fields first (decoding fails before validation), else the
 * schema's field errors, in kube's words. The policy validation webhooks answer the same, so an
 * API server that does not enforce the CRD (the embedded one, or an older install) refuses alike.
 */
import { isObject, type JsonValue } from '@edict/foundation';
import { obj, str, type Schema } from '../policy/schema-dsl';
import { crdFieldErrors, type CrdFieldError } from '../policy/schema-field-errors';
import { CRD_DEFINITIONS, type CrdVersion } from './crd-definitions';

const byKind = new Map<string, CrdVersion>();
for (const definition of CRD_DEFINITIONS) {
  for (const version of definition.versions)
    byKind.set(`${definition.group}/${version.name}/${definition.kind}`, version);
}

const roots = new WeakMap<CrdVersion, Schema>();
/** The DSL schema of a whole object of this version: apiVersion, kind, metadata (kube checks it apart), fields. */
export function versionSchema(version: CrdVersion): Schema {
  let schema = roots.get(version);
  if (!schema) {
    schema = obj(
      { apiVersion: str(), kind: str(), metadata: obj({}, { open: true }), ...version.fields },
      { required: version.required ?? [] },
    );
    roots.set(version, schema);
  }
  return schema;
}

/** The CRD version serving `apiVersion` and `kind`, when Edict installs one. */
export function crdVersionFor(apiVersion: string, kind: string): CrdVersion | undefined {
  return byKind.get(`${apiVersion}/${kind}`);
}

export interface CrdRefusal {
  readonly errors: readonly CrdFieldError[];
  /** The whole message, as kubectl prints it after `Error from server`. */
  readonly message: string;
}

/**
 * Why the API server would refuse `object`; undefined when it would not (or the kind is not Edict's).
 * On an update, pass the stored object: a problem it already had is let through (kube ratchets CRD
 * validation so), so that an object stored before its schema got stricter can still be updated, its
 * status written.
 */
export function crdRefusal(object: JsonValue, previous?: JsonValue): CrdRefusal | undefined {
  if (!isObject(object) || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') return undefined;
  const version = crdVersionFor(object.apiVersion, object.kind);
  if (!version) return undefined;
  const schema = versionSchema(version);
  const before = new Set(
    isObject(previous) ? crdFieldErrors(schema, previous).map((e) => `${e.field}\u0000${e.message}`) : [],
  );
  const errors = crdFieldErrors(schema, object).filter((e) => !before.has(`${e.field}\u0000${e.message}`));
  if (errors.length === 0) return undefined;
  const unknown = errors.filter((e) => e.field === '' && e.message.startsWith('unknown field '));
  if (unknown.length > 0) {
    return { errors: unknown, message: `strict decoding error: ${unknown.map((e) => e.message).join(', ')}` };
  }
  const listed = errors.map((e) => `${e.field}: ${e.message}`);
  const group = object.apiVersion.split('/')[0];
  const name = isObject(object.metadata) && typeof object.metadata.name === 'string' ? object.metadata.name : '';
  const detail = listed.length === 1 ? listed[0] : `[${listed.join(', ')}]`;
  return { errors, message: `${object.kind}.${group} ${JSON.stringify(name)} is invalid: ${detail}` };
}
