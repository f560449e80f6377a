/** Test helpers of @edict/webhook-config: cached policies without informers, and a static resolver. */
import { PolicyStore, type CachedPolicy } from '@edict/policy';
import type { Policy } from '@edict/engine';
import { type ResolvedResource, type ResourceResolver } from '@edict/kube';

/** Compiles a policy as the cache would (autogen included); throws when it is invalid. */
export function cachedPolicyOf(policy: Policy): CachedPolicy {
  const result = new PolicyStore({}).upsertPolicy(policy);
  if (result.status !== 'valid')
    throw new Error(`policy ${policy.metadata.name} is not valid: ${JSON.stringify(result)}`);
  return result.policy;
}

/** `[group, version, kind, plural, namespaced, subresources]` rows of a few built-in types. */
const BUILTIN: Array<[string, string, string, string, boolean, string[]]> = [
  ['', 'v1', 'Pod', 'pods', true, ['exec', 'log', 'status', 'ephemeralcontainers', 'eviction', 'attach']],
  ['', 'v1', 'ConfigMap', 'configmaps', true, []],
  ['', 'v1', 'Secret', 'secrets', true, []],
  ['', 'v1', 'Service', 'services', true, ['status']],
  ['', 'v1', 'Namespace', 'namespaces', false, ['status']],
  ['', 'v1', 'ReplicationController', 'replicationcontrollers', true, ['scale', 'status']],
  ['apps', 'v1', 'Deployment', 'deployments', true, ['scale', 'status']],
  ['apps', 'v1', 'StatefulSet', 'statefulsets', true, ['scale', 'status']],
  ['apps', 'v1', 'DaemonSet', 'daemonsets', true, ['status']],
  ['apps', 'v1', 'ReplicaSet', 'replicasets', true, ['scale', 'status']],
  ['batch', 'v1', 'Job', 'jobs', true, ['status']],
  ['batch', 'v1', 'CronJob', 'cronjobs', true, ['status']],
  ['networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies', true, []],
];

/**
 * A resolver over a fixed table (Kyverno's discovery semantics: `*` group/version match any,
 * a subresource must exist, an unknown kind resolves to nothing). `unknown` kinds answer
 * `undefined`, as when discovery has not answered.
 */
export function staticResolver(unknown: readonly string[] = []): ResourceResolver {
  return ({ group, version, kind, subresource }) => {
    if (unknown.includes(kind)) return undefined;
    const out: ResolvedResource[] = [];
    for (const [g, v, k, plural, namespaced, subs] of BUILTIN) {
      if ((group !== '*' && group !== g) || (version !== '*' && version !== v) || k !== kind) continue;
      if (subresource === '')
        out.push({ group: g, version: v, resource: plural, kind: k, subresource: '', namespaced });
      else if (subresource === '*')
        for (const s of subs) out.push({ group: g, version: v, resource: plural, kind: k, subresource: s, namespaced });
      else if (subs.includes(subresource))
        out.push({ group: g, version: v, resource: plural, kind: k, subresource, namespaced });
    }
    return out;
  };
}
