/**
 * The `fieldValidation` directive of writes (KEP 2885), as kube-apiserver applies it while decoding
 * a body: fields the type does not have (the CRD's structural schema, or a built-in's Go struct)
 * are always dropped; `Strict` refuses the request naming them, `Warn` (the default) answers with
 * one `Warning` header per field, `Ignore` says nothing. Server-side apply turns the applied
 * configuration into a typed object first, which fails on any unknown field whatever the directive.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { apiVersionOf, type ResourceType } from '../registry/resource-type';
import { pruneBySchema } from '../schema/prune';
import { pruneBuiltin } from '../schema/prune-builtin';
import type { FieldPath, Pruned } from '../schema/unknown-fields';
import { ApiError, badRequest, invalid } from '../status';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';
const DIRECTIVES: readonly string[] = ['Ignore', 'Warn', 'Strict'];

/** The directive a request asks for (`Warn` when absent); another value is refused as kube does. */
export function fieldValidationOf(
  query: URLSearchParams,
  optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
): FieldValidation {
  const value = query.get('fieldValidation') ?? '';
  if (value === '') return 'Warn';
  if (DIRECTIVES.includes(value)) return value as FieldValidation;
  throw invalid({ group: 'meta.k8s.io', kind: optionsKind, name: '' }, [
    {
      reason: 'FieldValueNotSupported',
      field: 'fieldValidation',
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`,
    },
  ]);
}

/** The object without the fields its type does not have, and where they were. */
export function pruneUnknownFields(type: ResourceType, object: JsonObject): Pruned<JsonObject> {
  if (!type.builtin) return type.schema ? pruneBySchema(object, type.schema) : { value: object, unknown: [] };
  return pruneBuiltin(apiVersionOf(type), type.kind, object);
}

/** How a write reached its body: kube words the refusal differently for each. */
export type DecodeOperation = 'create' | 'update' | 'patch';

/**
 * A create or update body, or the result of a JSON, merge or strategic patch, decoded under the
 * directive: pruned, with warnings added to `warnings` or kube's error thrown. `duplicates` are the
 * keys the request body repeats, reported first as kube's decoder meets them first.
 */
export function decodeFields(
  type: ResourceType,
  object: JsonObject,
  directive: FieldValidation,
  operation: DecodeOperation,
  warnings: string[],
  duplicates: readonly string[] = [],
): JsonObject {
  const { value, unknown } = pruneUnknownFields(type, object);
  if ((unknown.length === 0 && duplicates.length === 0) || directive === 'Ignore') return value;
  const problems = [
    ...new Set([
      ...duplicates.map((path) => `duplicate field "${path}"`),
      ...unknown.map((path) => `unknown field "${path.strict}"`).sort(),
    ]),
  ];
  if (directive === 'Warn') {
    warnings.push(...problems);
    return value;
  }
  const strict = `strict decoding error: ${problems.join(', ')}`;
  if (operation === 'patch') {
    // kube reports a patch's unknown fields against the patched object, as an Invalid `patch`.
    const message = `Invalid value: ${JSON.stringify(JSON.stringify(object))}: ${strict}`;
    return throwInvalidPatch(message);
  }
  throw badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${strict}`);
}

function throwInvalidPatch(message: string): never {
  throw new ApiError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}

/**
 * Server-side apply's typed conversion of the applied configuration: an unknown field fails the
 * request (kube-apiserver 1.32 answers it with a 500 whose Status has no reason).
 */
export function checkApplyConfiguration(
  type: ResourceType,
  configuration: JsonValue,
  namespace: string | undefined,
  name: string,
): void {
  if (!isObject(configuration)) return;
  const { unknown } = pruneUnknownFields(type, configuration);
  if (unknown.length === 0) return;
  const errors = unknown.map((path: FieldPath) => `${path.typed}: field not declared in schema`);
  const detail = errors.length === 1 ? errors[0]! : `errors:\n  ${errors.join('\n  ')}`;
  const gvk = `${type.group}/${type.version}, Kind=${type.kind}`;
  throw new ApiError(500, '', `failed to create typed patch object (${namespace ?? ''}/${name}; ${gvk}): ${detail}`);
}
