/**
 * The gpol branch's dependencies in the running controller: GeneratingPolicies from the CEL policy
 * cache (by `name` or `namespace/name`), the app's Kyverno CEL ports, the CEL PolicyExceptions in
 * force, Namespace objects from the engine's cache and plural names from discovery.
 */
import type { ClusterEngine, ClusterKyvernoCelPorts } from '@edict/context';
import { isNotFound, type KubeResources } from '@edict/kube';
import type { CelPolicyCache } from '@edict/policy';
import type { GpolRequestDeps } from './gpol-request';

export function generatingRequestDeps(
  celPolicies: Pick<CelPolicyCache, 'generatingPolicies' | 'policyExceptions'>,
  celPorts: ClusterKyvernoCelPorts,
  resources: Pick<KubeResources, 'resource'>,
  engine: Pick<ClusterEngine, 'namespace'>,
): GpolRequestDeps {
  return {
    ports: celPorts.ports,
    exceptions: () => celPolicies.policyExceptions(),
    generatingPolicy: (key) => {
      const slash = key.indexOf('/');
      const namespace = slash < 0 ? undefined : key.slice(0, slash);
      const name = slash < 0 ? key : key.slice(slash + 1);
      return celPolicies
        .generatingPolicies()
        .find((compiled) => compiled.name === name && compiled.namespace === namespace);
    },
    namespaceObject: async (namespace) => engine.namespace(namespace),
    resourceOf: async (apiVersion, kind) => {
      try {
        return (await resources.resource(apiVersion, kind)).name;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
  };
}
