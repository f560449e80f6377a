/**
 * What structured merge (server-side apply's merge, which ApplyConfiguration mutations use) needs to
 * know of a type: which lists are atomic (replaced whole), sets (merged by value) or maps (items
 * merged by their `x-kubernetes-list-map-keys`), and which objects are atomic. Three sources:
 * - DEDUCED_SHAPE: no schema, as Kyverno's CLI converts objects (kube's deduced type converter):
 *   objects granular, every list atomic, no field known (so nothing is reported as atomic);
 * - builtinShape: Kubernetes' built-in kinds, from the strategic-merge table Edict has
 *   (`listStrategyFor`: a list merged by key is a map list, one merged without key a set) and the
 *   atomic label selectors;
 * - schemaShape: a custom resource's OpenAPI v3 schema (`x-kubernetes-list-type`,
 *   `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`).
 */
import { isObject, listStrategyFor, type JsonObject } from '@edict/foundation';

export type ListShape =
  { readonly type: 'atomic' } | { readonly type: 'set' } | { readonly type: 'map'; readonly keys: readonly string[] };

export interface MergeShape {
  /** Whether an object at this node is replaced whole (`x-kubernetes-map-type: atomic`, selectors). */
  readonly atomicObject: boolean;
  /** How a list at this node merges. */
  readonly list: ListShape;
  /**
   * Whether the schema declares this field of the object (a struct field): kube looks for atomic
   * parts of an apply configuration only under declared fields.
   */
  declares(name: string): boolean;
  field(name: string): MergeShape;
  item(): MergeShape;
}

const ATOMIC: ListShape = { type: 'atomic' };

export const DEDUCED_SHAPE: MergeShape = {
  atomicObject: false,
  list: ATOMIC,
  declares: () => false,
  field: () => DEDUCED_SHAPE,
  item: () => DEDUCED_SHAPE,
};

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

/** The shape of a built-in kind's objects (kinds Edict does not know get atomic lists). */
export function builtinShape(apiVersion: string, kind: string): MergeShape {
  return builtinNode(apiVersion, kind, []);
}

function builtinNode(apiVersion: string, kind: string, path: readonly string[]): MergeShape {
  if (path[0] === 'metadata') return metadataNode(path.slice(1));
  const last = path[path.length - 1] ?? '';
  let list: ListShape | undefined;
  return {
    atomicObject:
      SELECTOR_FIELDS.has(last) ||
      (path.length === 2 && path[0] === 'spec' && last === 'selector' && ATOMIC_SPEC_SELECTOR.has(kind)),
    get list(): ListShape {
      if (!list) {
        const strategy = path.length > 0 ? listStrategyFor(apiVersion, kind, path) : undefined;
        list = !strategy?.merges
          ? ATOMIC
          : strategy.keys.length > 0
            ? { type: 'map', keys: strategy.keys }
            : { type: 'set' };
      }
      return list;
    },
    declares: () => true,
    field: (name) => builtinNode(apiVersion, kind, [...path, name]),
    // The strategic-merge table names list items by their list's path.
    item: () => builtinNode(apiVersion, kind, path),
  };
}

/** ObjectMeta, the same for every kind. */
function metadataNode(path: readonly string[]): MergeShape {
  const list: ListShape =
    path.length === 1 && path[0] === 'finalizers'
      ? { type: 'set' }
      : path.length === 1 && path[0] === 'ownerReferences'
        ? { type: 'map', keys: ['uid'] }
        : ATOMIC;
  return {
    atomicObject: false,
    list,
    declares: () => true,
    field: (name) => metadataNode([...path, name]),
    item: () => metadataNode(path),
  };
}

/** The shape a custom resource's OpenAPI v3 schema describes (its root). */
export function schemaShape(schema: JsonObject | undefined): MergeShape {
  return schemaNode(schema, true);
}

function schemaNode(schema: JsonObject | undefined, root: boolean): MergeShape {
  const listType = schema?.['x-kubernetes-list-type'];
  const rawKeys = schema?.['x-kubernetes-list-map-keys'];
  const keys = Array.isArray(rawKeys) ? rawKeys.filter((key): key is string => typeof key === 'string') : [];
  const properties = isObject(schema?.properties) ? schema.properties : undefined;
  return {
    atomicObject: schema?.['x-kubernetes-map-type'] === 'atomic',
    list: listType === 'set' ? { type: 'set' } : listType === 'map' && keys.length > 0 ? { type: 'map', keys } : ATOMIC,
    declares: (name) => (root && name === 'metadata') || isObject(properties?.[name]),
    field: (name) => {
      if (root && name === 'metadata') return metadataNode([]);
      const property = properties?.[name];
      if (isObject(property)) return schemaNode(property, false);
      const additional = schema?.additionalProperties;
      return schemaNode(isObject(additional) ? additional : undefined, false);
    },
    item: () => schemaNode(isObject(schema?.items) ? schema.items : undefined, false),
  };
}
