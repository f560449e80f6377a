import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { IgnoreFieldBinding, ObjectReference } from './ignore-fields';

/** One way to check a signature: an attestor entry of `validate.manifests.attestors[].entries`. */
export interface Attestor {
  /** `keys.publicKeys`: PEM text (possibly several keys) or a key reference; undefined when no `keys`. */
  keys?: { publicKeys: string };
  certificates?: JsonObject;
  keyless?: JsonObject;
  /** A nested attestor set, read when the entry is evaluated (as Kyverno does). */
  attestor?: JsonValue;
  annotations?: Record<string, string>;
  repository?: string;
}

export interface AttestorSet {
  count?: number;
  entries: Attestor[];
}

/** `validate.manifests`, with the fields this engine reads. */
export interface ManifestsSpec {
  attestors: AttestorSet[];
  annotationDomain: string;
  ignoreFields: IgnoreFieldBinding[];
  dryRun: boolean;
  repository: string;
}

export const DEFAULT_ANNOTATION_DOMAIN = 'cosign.sigstore.dev';

/** A malformed field of the rule, named by its path. */
export class ManifestSpecError extends Error {}

const parsed = new WeakMap<JsonObject, ManifestsSpec>();

/** Reads `validate.manifests`; throws a {@link ManifestSpecError} naming the first bad field. */
export function parseManifests(value: JsonObject, path = 'validate.manifests'): ManifestsSpec {
  const cached = parsed.get(value);
  if (cached) return cached;
  const dryRun = optionalObject(value.dryRun, `${path}.dryRun`);
  const spec: ManifestsSpec = {
    attestors: list(value.attestors, `${path}.attestors`).map((set, i) =>
      parseAttestorSet(set, `${path}.attestors[${i}]`),
    ),
    annotationDomain: optionalString(value.annotationDomain, `${path}.annotationDomain`) || DEFAULT_ANNOTATION_DOMAIN,
    ignoreFields: list(value.ignoreFields, `${path}.ignoreFields`).map((b, i) =>
      parseBinding(b, `${path}.ignoreFields[${i}]`),
    ),
    dryRun: dryRun?.enable === true,
    repository: optionalString(value.repository, `${path}.repository`) ?? '',
  };
  parsed.set(value, spec);
  return spec;
}

export function parseAttestorSet(value: JsonValue | undefined, path: string): AttestorSet {
  const set = requiredObject(value, path);
  const count = set.count;
  if (count !== undefined && count !== null && (typeof count !== 'number' || !Number.isInteger(count) || count < 0)) {
    throw new ManifestSpecError(`${path}.count must be a non-negative integer`);
  }
  return {
    ...(typeof count === 'number' ? { count } : {}),
    entries: list(set.entries, `${path}.entries`).map((entry, i) => parseAttestor(entry, `${path}.entries[${i}]`)),
  };
}

function parseAttestor(value: JsonValue, path: string): Attestor {
  const entry = requiredObject(value, path);
  const attestor: Attestor = {};
  const keys = optionalObject(entry.keys, `${path}.keys`);
  if (keys) attestor.keys = { publicKeys: optionalString(keys.publicKeys, `${path}.keys.publicKeys`) ?? '' };
  const certificates = optionalObject(entry.certificates, `${path}.certificates`);
  if (certificates) attestor.certificates = certificates;
  const keyless = optionalObject(entry.keyless, `${path}.keyless`);
  if (keyless) attestor.keyless = keyless;
  if (entry.attestor !== undefined && entry.attestor !== null) attestor.attestor = entry.attestor;
  const annotations = optionalObject(entry.annotations, `${path}.annotations`);
  if (annotations) {
    attestor.annotations = {};
    for (const [key, v] of Object.entries(annotations)) {
      attestor.annotations[key] = requiredString(v, `${path}.annotations.${key}`);
    }
  }
  const repository = optionalString(entry.repository, `${path}.repository`);
  if (repository) attestor.repository = repository;
  return attestor;
}

function parseBinding(value: JsonValue, path: string): IgnoreFieldBinding {
  const binding = requiredObject(value, path);
  return {
    fields: list(binding.fields, `${path}.fields`).map((f, i) => requiredString(f, `${path}.fields[${i}]`)),
    objects: list(binding.objects, `${path}.objects`).map((o, i) => parseReference(o, `${path}.objects[${i}]`)),
  };
}

function parseReference(value: JsonValue, path: string): ObjectReference {
  const o = requiredObject(value, path);
  const reference: ObjectReference = {};
  for (const key of ['group', 'version', 'kind', 'name', 'namespace'] as const) {
    const field = optionalString(o[key], `${path}.${key}`);
    if (field !== undefined) reference[key] = field;
  }
  return reference;
}

function list(value: JsonValue | undefined, path: string): JsonValue[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ManifestSpecError(`${path} must be a list`);
  return value;
}

function requiredObject(value: JsonValue | undefined, path: string): JsonObject {
  if (!isObject(value)) throw new ManifestSpecError(`${path} must be an object`);
  return value;
}

function optionalObject(value: JsonValue | undefined, path: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  return requiredObject(value, path);
}

function requiredString(value: JsonValue | undefined, path: string): string {
  if (typeof value !== 'string') throw new ManifestSpecError(`${path} must be a string`);
  return value;
}

function optionalString(value: JsonValue | undefined, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  return requiredString(value, path);
}
