/** Checks and shapes of a write's body before it is planned: decoding, type meta, patch requests, CRDs. */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { validateCrd } from '../registry/crd';
import { apiVersionOf, type ResourceType } from '../registry/resource-type';
import { ApiError, invalid, unsupportedMediaType } from '../status';
import { decodeFields, type DecodeOperation } from './field-validation';
import { metadataOf } from './prepare';
import type { PatchOptions, PatchType, WriteOptions } from './write-options';

export function checkCrd(crd: JsonObject): void {
  const causes = validateCrd(crd);
  if (causes.length > 0) {
    throw invalid(
      { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition', name: String(metadataOf(crd).name) },
      causes,
    );
  }
}

/** A body decoded under the request's `fieldValidation` (direct typed calls: dropped silently). */
export function decodeBody(
  type: ResourceType,
  body: JsonObject,
  options: WriteOptions,
  operation: DecodeOperation,
): JsonObject {
  return decodeFields(
    type,
    body,
    options.fieldValidation ?? 'Ignore',
    operation,
    options.warnings ?? [],
    options.duplicateFields ?? [],
  );
}

export function kindMissing(body: JsonValue): ApiError {
  return new ApiError(400, 'BadRequest', `Object 'Kind' is missing in '${JSON.stringify(body)}'`);
}

export function checkPatchRequest(type: ResourceType, patchType: PatchType, options: PatchOptions): void {
  if (patchType === 'strategic' && !type.builtin) {
    throw unsupportedMediaType(
      'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor',
    );
  }
  if (patchType === 'apply' && !options.fieldManager) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions', name: '' }, [
      { reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' },
    ]);
  }
}

/** The object an apply patch creates when nothing exists yet. */
export function applyCreateBody(name: string, patch: JsonValue): JsonObject {
  const body = isObject(patch) ? patch : {};
  const bodyName = metadataOf(body).name;
  if (bodyName !== undefined && bodyName !== name) {
    throw new ApiError(
      400,
      'BadRequest',
      `the name of the object (${String(bodyName)}) does not match the name on the URL (${name})`,
    );
  }
  return { ...body, metadata: { ...metadataOf(body), name } };
}

/** A request body with apiVersion, kind and the URL's metadata filled in, as webhooks see it. */
export function typed(type: ResourceType, body: JsonObject, defaults: JsonObject): JsonObject {
  const metadata: JsonObject = { ...metadataOf(body) };
  // Only fills what the body leaves out: mismatches are still reported by the checks that follow.
  for (const [field, value] of Object.entries(defaults)) {
    if (metadata[field] === undefined || metadata[field] === '') metadata[field] = value;
  }
  return { ...body, apiVersion: apiVersionOf(type), kind: type.kind, metadata };
}

export function nameOf(object: JsonObject): string {
  const name = metadataOf(object).name;
  return typeof name === 'string' ? name : '';
}
