/**
 * What server-side apply needs to know of a type's structure: which lists are associative (items
 * by key fields), sets (items by value) or atomic (owned and replaced whole), and which objects are
 * atomic. Built-in kinds take it from the strategic-merge table (a list merged by key is a map
 * keyed by `x-kubernetes-list-map-keys`, one merged without key a set, every other list atomic) plus
 * kube's atomic selectors; custom resources from their schema's `x-kubernetes-list-type`,
 * `x-kubernetes-list-map-keys` and `x-kubernetes-map-type` (lists are atomic unless declared, as in
 * kube). Unknown fields are deduced as kube does: objects granular, lists atomic.
 */
import { isObject, type JsonObject, type JsonValue, listStrategyFor } from '@edict/foundation';
import { apiVersionOf, type ResourceType } from '../registry/resource-type';

export type ListShape =
  { readonly type: 'atomic' } | { readonly type: 'set' } | { readonly type: 'map'; readonly keys: readonly string[] };

export interface Shape {
  /** Whether an object at this node is owned and replaced whole. */
  readonly atomicObject: boolean;
  /**
   * Whether a write that adds this object or list node owns the node itself (`.` in fieldsV1), not
   * only what it holds. Kube compares with an empty typed object, where struct fields and required
   * lists already exist: only maps and optional lists are new. Every node of a custom resource is.
   */
  tracksNode(value: JsonValue): boolean;
  readonly list: ListShape;
  /** The shape of a field of the object at this node. */
  field(name: string): Shape;
  /** The shape of each item of the list at this node. */
  item(): Shape;
}

const ATOMIC: ListShape = { type: 'atomic' };

/** Fields typed LabelSelector (`+structType=atomic`), wherever they appear. */
const SELECTOR_FIELDS = new Set(['labelSelector', 'namespaceSelector', 'objectSelector', 'podSelector']);
/** Kinds whose `spec.selector` is atomic (a LabelSelector, or Service's atomic map). */
const ATOMIC_SPEC_SELECTOR = new Set([
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'Service',
  'PodDisruptionBudget',
]);

/** Map-typed fields of built-in kinds (`map[string]...`): new ones are owned as nodes. */
const MAP_FIELDS = new Set([
  'labels',
  'annotations',
  'data',
  'binaryData',
  'stringData',
  'nodeSelector',
  'matchLabels',
  'limits',
  'requests',
  'capacity',
  'allocatable',
  'parameters',
  'overhead',
]);

/** Lists that a built-in kind always has (no `omitempty`): they are never new. */
const REQUIRED_LISTS = new Set(['containers']);

function builtinTracksNode(path: readonly string[]): (value: JsonValue) => boolean {
  const last = path[path.length - 1] ?? '';
  return (value) => (Array.isArray(value) ? !REQUIRED_LISTS.has(last) : MAP_FIELDS.has(last));
}

/** ObjectMeta, the same for every kind. */
function metadataShape(path: readonly string[]): Shape {
  const list: ListShape =
    path[0] === 'finalizers' && path.length === 1
      ? { type: 'set' }
      : path[0] === 'ownerReferences' && path.length === 1
        ? { type: 'map', keys: ['uid'] }
        : ATOMIC;
  return {
    atomicObject: false,
    list,
    tracksNode: builtinTracksNode(path),
    field: (name) => metadataShape([...path, name]),
    item: () => metadataShape(path),
  };
}

/** Map lists of kube 1.32 the strategic-merge table (Kyverno's 1.21 view) does not name, by kind then path. */
const WEBHOOK_LISTS: Readonly<Record<string, readonly string[]>> = {
  webhooks: ['name'],
  'webhooks.matchConditions': ['name'],
};
const MORE_MAP_LISTS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  ValidatingWebhookConfiguration: WEBHOOK_LISTS,
  MutatingWebhookConfiguration: WEBHOOK_LISTS,
};

function builtinShape(apiVersion: string, kind: string, path: readonly string[]): Shape {
  if (path[0] === 'metadata') return metadataShape(path.slice(1));
  const last = path[path.length - 1] ?? '';
  const atomicObject =
    SELECTOR_FIELDS.has(last) ||
    (path.length === 2 && path[0] === 'spec' && last === 'selector' && ATOMIC_SPEC_SELECTOR.has(kind));
  let list: ListShape | undefined;
  return {
    atomicObject,
    // Looked up only for lists: most nodes are scalars and objects.
    get list(): ListShape {
      list ??= builtinList(apiVersion, kind, path);
      return list;
    },
    tracksNode: builtinTracksNode(path),
    field: (name) => builtinShape(apiVersion, kind, [...path, name]),
    // The strategic-merge table names list items by their list's path.
    item: () => builtinShape(apiVersion, kind, path),
  };
}

function builtinList(apiVersion: string, kind: string, path: readonly string[]): ListShape {
  const moreKeys = MORE_MAP_LISTS[kind]?.[path.join('.')];
  if (moreKeys) return { type: 'map', keys: moreKeys };
  const strategy = path.length > 0 ? listStrategyFor(apiVersion, kind, path) : undefined;
  if (!strategy?.merges) return ATOMIC;
  return strategy.keys.length > 0 ? { type: 'map', keys: strategy.keys } : { type: 'set' };
}

/** A node of a custom resource's OpenAPI v3 schema; `undefined` where the schema says nothing. */
function schemaShape(schema: JsonObject | undefined, root: boolean): Shape {
  const listType = schema?.['x-kubernetes-list-type'];
  const keys = Array.isArray(schema?.['x-kubernetes-list-map-keys'])
    ? (schema['x-kubernetes-list-map-keys'] as unknown[]).filter((key): key is string => typeof key === 'string')
    : [];
  const list: ListShape =
    listType === 'set' ? { type: 'set' } : listType === 'map' && keys.length > 0 ? { type: 'map', keys } : ATOMIC;
  return {
    atomicObject: schema?.['x-kubernetes-map-type'] === 'atomic',
    list,
    tracksNode: () => true,
    field: (name) => {
      if (root && name === 'metadata') return metadataShape([]);
      const properties = isObject(schema?.properties) ? schema.properties : {};
      const property = properties[name];
      if (isObject(property)) return schemaShape(property, false);
      const additional = schema?.additionalProperties;
      return schemaShape(isObject(additional) ? additional : undefined, false);
    },
    item: () => schemaShape(isObject(schema?.items) ? schema.items : undefined, false),
  };
}

/** The root shape of a type's objects. */
export function shapeOf(type: ResourceType): Shape {
  if (type.builtin) return builtinShape(apiVersionOf(type), type.kind, []);
  return schemaShape(type.schema, true);
}
