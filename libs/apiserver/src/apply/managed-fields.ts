/**
 * `metadata.managedFields` as kube-apiserver keeps it: one entry per manager, operation (Apply or
 * Update), subresource and, for updaters, apiVersion, each with the set of fields it owns.
 *
 * - Writes other than apply (create, update, non-apply patches) are Update operations: the writer
 *   gains the fields it added or changed and loses those it removed; other managers lose them too.
 * - An apply owns exactly the fields of its configuration. It fails with 409 when it would change a
 *   field another manager owns (unless forced, which takes the field over), and removes the fields
 *   it applied before but no longer applies when nobody else owns them.
 * - A request body carrying managedFields replaces the recorded ones (`[{}]` clears them), as kube
 *   lets clients rewrite them (kubectl's client-side to server-side apply upgrade does).
 * System metadata, apiVersion/kind and the part a subresource does not write are never tracked.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { apiVersionOf, type ResourceType } from '../registry/resource-type';
import { badRequest } from '../status';
import { metadataOf, timestamp } from '../resources/prepare';
import { applyConflict, type Conflict } from './conflicts';
import { canonicalJson, FieldSet } from './field-set';
import { shapeOf } from './shapes';
import { compare, fieldsOf, mergeApplied, removePath } from './structure';

export type Operation = 'Apply' | 'Update';

export interface ManagerEntry {
  readonly manager: string;
  readonly operation: Operation;
  readonly apiVersion: string;
  readonly subresource: string;
  readonly time?: string;
  readonly fields: FieldSet;
}

/** Who writes, and through which subresource (`status`), at what time. */
export interface FieldOwner {
  /** Unnamed writes (the server's own controllers) take fields from others without owning them. */
  readonly manager: string | undefined;
  readonly subresource?: string;
  readonly now: Date;
}

/** Metadata kube never tracks ownership of. */
const SYSTEM_METADATA = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
  'managedFields',
];

/** A manager's identity: appliers are one entry whatever version they apply; updaters one per version. */
function identity(entry: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([
    entry.manager,
    entry.operation,
    entry.operation === 'Update' ? entry.apiVersion : '',
    entry.subresource,
  ]);
}

/** The part of an object whose fields are tracked: what the subresource writes, without system metadata. */
function tracked(type: ResourceType, object: JsonObject, subresource: string): JsonObject {
  if (subresource === 'status') return object.status === undefined ? {} : { status: object.status };
  const { apiVersion: _v, kind: _k, metadata, ...rest } = object;
  const owned: JsonObject = { ...rest };
  if (type.subresources.includes('status')) delete owned.status;
  if (isObject(metadata)) {
    const kept: JsonObject = { ...metadata };
    for (const field of SYSTEM_METADATA) delete kept[field];
    owned.metadata = kept;
  }
  return owned;
}

/** Decoded entries by the stored entry (stored objects are replaced, never changed in place). */
const decoded = new WeakMap<JsonObject, ManagerEntry>();

export function decodeManagedFields(value: JsonValue | undefined): ManagerEntry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('metadata.managedFields must be a list');
  return value.map((raw, index) => {
    const entry = isObject(raw) ? raw : {};
    const known = decoded.get(entry);
    if (known) return known;
    let fields: FieldSet;
    try {
      fields = FieldSet.fromFieldsV1(entry.fieldsV1);
    } catch (error) {
      throw badRequest(`metadata.managedFields[${index}].fieldsV1: ${(error as Error).message}`);
    }
    const result: ManagerEntry = {
      manager: typeof entry.manager === 'string' ? entry.manager : '',
      operation: entry.operation === 'Apply' ? 'Apply' : 'Update',
      apiVersion: typeof entry.apiVersion === 'string' ? entry.apiVersion : '',
      subresource: typeof entry.subresource === 'string' ? entry.subresource : '',
      ...(typeof entry.time === 'string' ? { time: entry.time } : {}),
      fields,
    };
    decoded.set(entry, result);
    return result;
  });
}

/** Entries as kube stores them: empty ones dropped, Apply before Update, then by time, manager, version. */
export function encodeManagedFields(entries: readonly ManagerEntry[]): JsonObject[] {
  return entries
    .filter((entry) => !entry.fields.isEmpty())
    .sort(
      (a, b) =>
        compareText(a.operation, b.operation) ||
        seconds(a.time) - seconds(b.time) ||
        compareText(a.manager, b.manager) ||
        compareText(a.apiVersion, b.apiVersion) ||
        compareText(a.subresource, b.subresource),
    )
    .map((entry) => {
      const encoded: JsonObject = {
        manager: entry.manager,
        operation: entry.operation,
        apiVersion: entry.apiVersion,
        ...(entry.time ? { time: entry.time } : {}),
        fieldsType: 'FieldsV1',
        fieldsV1: entry.fields.toFieldsV1(),
        ...(entry.subresource ? { subresource: entry.subresource } : {}),
      };
      decoded.set(encoded, entry);
      return encoded;
    });
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function seconds(time: string | undefined): number {
  const parsed = time ? Date.parse(time) : NaN;
  return Number.isFinite(parsed) ? Math.trunc(parsed / 1000) : 0;
}

/** The entries a write starts from: the body's when it sets some (not through a subresource), else the live object's. */
function startingEntries(live: JsonObject | undefined, body: JsonObject, subresource: string): ManagerEntry[] {
  const requested = metadataOf(body).managedFields;
  if (subresource === '' && Array.isArray(requested) && requested.length > 0) {
    try {
      return decodeManagedFields(requested);
    } catch {
      // As kube: managedFields a client got wrong are ignored, not refused; the live ones stay.
    }
  }
  return live ? decodeManagedFields(metadataOf(live).managedFields) : [];
}

/** Update entries kube keeps before folding the oldest into `ancient-changes` (its default). */
export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';

/** At most MAX_UPDATE_MANAGERS Update entries: the oldest fold into an `ancient-changes` entry per version. */
function capUpdateManagers(entries: readonly ManagerEntry[]): ManagerEntry[] {
  let result = [...entries];
  const updaters = () => result.filter((entry) => entry.operation === 'Update' && !entry.fields.isEmpty());
  while (updaters().length > MAX_UPDATE_MANAGERS) {
    const entry = updaters()
      .filter((candidate) => candidate.manager !== ANCIENT_CHANGES)
      .sort((a, b) => seconds(a.time) - seconds(b.time) || compareText(a.manager, b.manager))[0];
    if (!entry) break;
    const bucket = {
      manager: ANCIENT_CHANGES,
      operation: 'Update' as const,
      apiVersion: entry.apiVersion,
      subresource: '',
    };
    const existing = result.find((candidate) => identity(candidate) === identity(bucket));
    result = result.filter((candidate) => candidate !== entry && candidate !== existing);
    const fields = existing ? existing.fields.union(entry.fields) : entry.fields;
    result.push({ ...bucket, fields, ...(entry.time ? { time: entry.time } : {}) });
  }
  return result;
}

function withManagedFields(object: JsonObject, entries: readonly ManagerEntry[]): JsonObject {
  const metadata: JsonObject = { ...metadataOf(object) };
  const encoded = encodeManagedFields(capUpdateManagers(entries));
  if (encoded.length > 0) metadata.managedFields = encoded;
  else delete metadata.managedFields;
  return { ...object, metadata };
}

/**
 * `object` (about to replace `live`, or be created when `live` is undefined) with its managedFields
 * updated for an Update operation by `owner`.
 */
export function recordUpdate(
  type: ResourceType,
  live: JsonObject | undefined,
  object: JsonObject,
  owner: FieldOwner,
): JsonObject {
  const subresource = owner.subresource ?? '';
  const shape = shapeOf(type);
  const before = live ? tracked(type, live, subresource) : emptyObjectOf(type);
  const change = compare(before, tracked(type, object, subresource), shape);
  const gained = change.added.union(change.modified);
  const self = {
    manager: owner.manager ?? '',
    operation: 'Update' as const,
    apiVersion: apiVersionOf(type),
    subresource,
  };
  const entries = startingEntries(live, object, subresource).map((entry) => ({
    ...entry,
    fields: entry.fields.difference(gained).difference(change.removed),
  }));
  const index = entries.findIndex((entry) => identity(entry) === identity(self));
  const previous = index >= 0 ? entries[index]!.fields : new FieldSet();
  if (!gained.isEmpty() && owner.manager !== undefined) {
    const updated: ManagerEntry = { ...self, time: timestamp(owner.now), fields: previous.union(gained) };
    if (index >= 0) entries[index] = updated;
    else entries.push(updated);
  }
  return withManagedFields(object, entries);
}

/**
 * Kube compares a create with a new, empty object of the type: built-in types start with their
 * `spec` and `status` structs, custom resources with nothing.
 */
function emptyObjectOf(type: ResourceType): JsonObject {
  return type.builtin ? { metadata: {}, spec: {}, status: {} } : { metadata: {} };
}

/**
 * Server-side apply of `config` by `owner` onto `live` (undefined: the object does not exist yet):
 * the merged object with its managedFields, or 409 Conflict naming the fields others own.
 */
export function applyConfiguration(
  type: ResourceType,
  live: JsonObject | undefined,
  config: JsonObject,
  owner: FieldOwner & { readonly manager: string; readonly force: boolean },
): JsonObject {
  if (metadataOf(config).managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
  const subresource = owner.subresource ?? '';
  const shape = shapeOf(type);
  const self = { manager: owner.manager, operation: 'Apply' as const, apiVersion: apiVersionOf(type), subresource };
  const entries = live ? decodeManagedFields(metadataOf(live).managedFields) : [];
  const index = entries.findIndex((entry) => identity(entry) === identity(self));
  const lastApplied = index >= 0 ? entries[index]!.fields : new FieldSet();
  const others = entries.filter((_, i) => i !== index);
  const applied = fieldsOf(tracked(type, config, subresource), shape);

  let merged = (live ? mergeApplied(live, config, shape) : config) as JsonObject;
  // Fields applied last time and not now go, unless someone else (or this configuration) owns them or below.
  const dropEmptied = type.builtin;
  for (const path of lastApplied.difference(applied).paths().reverse()) {
    if (applied.touches(path) || others.some((entry) => entry.fields.touches(path))) continue;
    merged = removePath(merged, path, shape, dropEmptied);
  }

  const change = compare(
    live ? tracked(type, live, subresource) : { metadata: {} },
    tracked(type, merged, subresource),
    shape,
  );
  const changed = change.added.union(change.modified);
  const conflicts: Conflict[] = [];
  for (const entry of others) {
    for (const path of entry.fields.intersection(changed).paths()) conflicts.push({ ...entry, path });
  }
  if (!owner.force) {
    const allowed =
      owner.manager === KUBECTL && live ? unchangedSinceClientSideApply(type, live, subresource) : undefined;
    const remaining = allowed ? conflicts.filter((conflict) => !allowed.has(conflict.path)) : conflicts;
    if (remaining.length > 0) throw applyConflict(remaining);
  }
  if (owner.manager === KUBECTL && live && lastAppliedOf(live) !== undefined) merged = withLastApplied(merged, config);

  const unchanged = live !== undefined && changed.isEmpty() && change.removed.isEmpty();
  const previous = index >= 0 ? entries[index] : undefined;
  const result: ManagerEntry[] = others.map((entry) => ({
    ...entry,
    fields: entry.fields.difference(changed).difference(change.removed),
  }));
  // The time moves when the object changes (or the entry is new).
  const time = unchanged && previous?.time ? previous.time : timestamp(owner.now);
  result.push({ ...self, time, fields: applied });
  return withManagedFields(merged, result);
}

const KUBECTL = 'kubectl';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function lastAppliedOf(object: JsonObject): string | undefined {
  const annotations = metadataOf(object).annotations;
  const value = isObject(annotations) ? annotations[LAST_APPLIED] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Fields `kubectl apply --server-side` may take over from client-side apply without a conflict, as
 * kube allows: those of the last-applied annotation whose live value is still the one applied.
 */
function unchangedSinceClientSideApply(
  type: ResourceType,
  live: JsonObject,
  subresource: string,
): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined) return undefined;
  let lastApplied: JsonValue;
  try {
    lastApplied = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied)) return undefined;
  const shape = shapeOf(type);
  const before = tracked(type, lastApplied, subresource);
  const since = compare(before, tracked(type, live, subresource), shape);
  return fieldsOf(before, shape).difference(since.modified).difference(since.removed);
}

/** Server-side apply by kubectl keeps a client-side apply annotation in step with what it applied. */
function withLastApplied(object: JsonObject, config: JsonObject): JsonObject {
  const configMeta = metadataOf(config);
  const configAnnotations = isObject(configMeta.annotations) ? { ...configMeta.annotations } : {};
  delete configAnnotations[LAST_APPLIED];
  const applied = { ...config, metadata: { ...configMeta, annotations: configAnnotations } };
  const metadata = metadataOf(object);
  const annotations = {
    ...(isObject(metadata.annotations) ? metadata.annotations : {}),
    [LAST_APPLIED]: `${canonicalJson(applied)}\n`,
  };
  return { ...object, metadata: { ...metadata, annotations } };
}

/** The manager kube names a write after when the request names none: the user agent's product (`kubectl`). */
export function managerFromUserAgent(userAgent: string | undefined): string | undefined {
  if (!userAgent) return undefined;
  const product = userAgent.split('/')[0]!.trim();
  return product === '' ? undefined : product.slice(0, 128);
}
