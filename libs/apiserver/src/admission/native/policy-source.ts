/**
 * What native admission policies read from the server, as kube-apiserver's policy plugins read
 * their informers: the stored policies and bindings, namespaces, parameter objects (paramKind
 * resolved through the registry, as the plugin's REST mapper does), the versions the server serves
 * of a resource (matchPolicy Equivalent), and the shape structured merge uses for a kind.
 */
import {
  builtinShape,
  schemaShape,
  type EquivalentResources,
  type GroupVersionKind,
  type MergeShape,
  type ParamKind,
  type ParamSource,
} from '@edict/native-policies';
import { isObject, matchesLabelSelector, type JsonObject } from '@edict/foundation';
import type { ResourceRegistry } from '../../registry/registry';
import { apiVersionOf, type ResourceType } from '../../registry/resource-type';
import { storageKey } from '../../resources/event-versions';
import type { ObjectStore } from '../../store/object-store';

const GROUP = 'admissionregistration.k8s.io';

export interface NativePolicyObjects {
  validatingPolicies(): readonly JsonObject[];
  validatingBindings(): readonly JsonObject[];
  mutatingPolicies(): readonly JsonObject[];
  mutatingBindings(): readonly JsonObject[];
  /** The Namespace object named `name`, undefined when there is none. */
  namespace(name: string): JsonObject | undefined;
  readonly params: ParamSource;
  readonly equivalents: EquivalentResources;
  shape(kind: GroupVersionKind): MergeShape;
}

export function storedPolicyObjects(store: ObjectStore, registry: ResourceRegistry): NativePolicyObjects {
  const served = (plural: string) => registry.versionsOf(GROUP, plural).length > 0;
  const list = (plural: string) => (served(plural) ? store.list(`${GROUP}/${plural}`) : []);
  return {
    validatingPolicies: () => list('validatingadmissionpolicies'),
    validatingBindings: () => list('validatingadmissionpolicybindings'),
    mutatingPolicies: () => list('mutatingadmissionpolicies'),
    mutatingBindings: () => list('mutatingadmissionpolicybindings'),
    namespace: (name) => store.get('/namespaces', '', name),
    params: storedParams(store, registry),
    equivalents: (resource) =>
      registry
        .versionsOf(resource.group, resource.resource)
        .filter((type) => type.version !== resource.version)
        .map((type) => ({
          resource: { group: type.group, version: type.version, resource: type.plural },
          kind: { group: type.group, version: type.version, kind: type.kind },
        })),
    shape: (kind) => {
      const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
      const type = registry.findByKind(apiVersion, kind.kind);
      return type?.schema ? schemaShape(type.schema) : builtinShape(apiVersion, kind.kind);
    },
  };
}

/** `group/version, Kind=kind`, as kube prints a GroupVersionKind. */
function describeKind(kind: ParamKind): string {
  const slash = kind.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : kind.apiVersion.slice(0, slash);
  const version = slash < 0 ? kind.apiVersion : kind.apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${kind.kind}`;
}

/** Parameter objects from the store, at the paramKind's version (as its informer lists them). */
function storedParams(store: ObjectStore, registry: ResourceRegistry): ParamSource {
  const typeOf = (kind: ParamKind): ResourceType => {
    const type = registry.findByKind(kind.apiVersion, kind.kind);
    // kube has no informer for a kind it does not serve: a configuration error of the binding.
    if (!type) throw new Error(`paramKind kind \`${describeKind(kind)}\` not known`);
    return type;
  };
  const asParam = (type: ResourceType, object: JsonObject): JsonObject => ({
    ...object,
    apiVersion: apiVersionOf(type),
    kind: type.kind,
  });
  return {
    namespaced: (kind) => typeOf(kind).namespaced,
    get: (kind, namespace, name) => {
      const type = typeOf(kind);
      const object = store.get(storageKey(type), type.namespaced ? (namespace ?? '') : '', name);
      return object ? asParam(type, object) : undefined;
    },
    list: (kind, namespace, selector) => {
      const type = typeOf(kind);
      return store
        .list(storageKey(type), type.namespaced ? namespace : undefined)
        .filter((object) => {
          const metadata = isObject(object.metadata) ? object.metadata : {};
          const labels = isObject(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
          return matchesLabelSelector(selector, labels);
        })
        .map((object) => asParam(type, object));
    },
  };
}
