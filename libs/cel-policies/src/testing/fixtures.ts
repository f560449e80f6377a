import type { KubeObject } from '@edict/foundation';
import type { ResourceRequest } from '@edict/engine';
import type { ValidatingPolicySpec } from '../api/types';
import type { ImageValidatingPolicySpec } from '../image-validating/types';
import type { CelPolicyInput } from '../evaluate/input';
import type { MutatingPolicySpec } from '../mutating/types';
import type { GeneratingPolicySpec } from '../generating/types';

/** A ValidatingPolicy object around a spec (a NamespacedValidatingPolicy when given a namespace). */
export function validatingPolicy(name: string, spec: ValidatingPolicySpec, namespace?: string): KubeObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedValidatingPolicy' : 'ValidatingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: spec as unknown as KubeObject['spec'],
  } as KubeObject;
}

/** A MutatingPolicy object around a spec (a NamespacedMutatingPolicy when given a namespace). */
export function mutatingPolicy(name: string, spec: MutatingPolicySpec, namespace?: string): KubeObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: spec as unknown as KubeObject['spec'],
  } as KubeObject;
}

/** An ImageValidatingPolicy object around a spec (a NamespacedImageValidatingPolicy when given a namespace). */
export function imageValidatingPolicy(name: string, spec: ImageValidatingPolicySpec, namespace?: string): KubeObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedImageValidatingPolicy' : 'ImageValidatingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: spec as unknown as KubeObject['spec'],
  } as KubeObject;
}

/** A GeneratingPolicy object around a spec (a NamespacedGeneratingPolicy when given a namespace). */
export function generatingPolicy(name: string, spec: GeneratingPolicySpec, namespace?: string): KubeObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedGeneratingPolicy' : 'GeneratingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: spec as unknown as KubeObject['spec'],
  } as KubeObject;
}

/** matchConstraints on one resource for CREATE and UPDATE. */
export function matching(group: string, version: string, resource: string): ValidatingPolicySpec['matchConstraints'] {
  return {
    resourceRules: [
      { apiGroups: [group], apiVersions: [version], operations: ['CREATE', 'UPDATE'], resources: [resource] },
    ],
  };
}

export function pod(
  name: string,
  namespace: string,
  spec: Record<string, unknown>,
  labels?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    spec,
  } as KubeObject;
}

const PLURALS: Record<string, string> = {
  Pod: 'pods',
  Deployment: 'deployments',
  CronJob: 'cronjobs',
  ConfigMap: 'configmaps',
  Namespace: 'namespaces',
  StatefulSet: 'statefulsets',
  Job: 'jobs',
};

/** The input for a CREATE (or another operation) of an object, as the CLI or a scan builds it. */
export function inputFor(
  object: KubeObject,
  extra: Partial<ResourceRequest> & { namespaceObject?: KubeObject | null } = {},
): CelPolicyInput {
  const { namespaceObject, ...request } = extra;
  const slash = object.apiVersion.indexOf('/');
  return {
    request: { operation: 'CREATE', resource: object, ...request },
    resource: {
      group: slash < 0 ? '' : object.apiVersion.slice(0, slash),
      version: slash < 0 ? object.apiVersion : object.apiVersion.slice(slash + 1),
      resource: PLURALS[object.kind] ?? pluralOf(object.kind),
    },
    ...(namespaceObject !== undefined ? { namespaceObject } : {}),
  };
}

/** The plural Kubernetes gives most kinds (ingress -> ingresses, networkpolicy -> networkpolicies). */
function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
