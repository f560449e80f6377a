/**
 * The cluster as a namespaced Policy's rule work sees it: every write (create, update, delete) is
 * checked first (@edict/context's checkTenantWrite: a namespaced object of the policy's own
 * namespace, never one of Kyverno's kinds, the kind's scope from discovery, unknown refused). The
 * engine already refuses such targets after substituting variables; this is the last check before
 * the controller's cluster-wide rights are used, and it also catches what a patch or a data block
 * changed afterwards (a target's namespace or kind). Reads pass through.
 */
import { checkTenantWrite, type WriteTarget, type WritingPolicy } from '@edict/context';
import type { ObjectHeader } from '@edict/foundation';
import { objectRef, type ClusterObjects } from './cluster-objects';

export function tenantClusterObjects(cluster: ClusterObjects, policy: WritingPolicy): ClusterObjects {
  if (!policy.namespace) return cluster;
  const check = async (verb: string, target: WriteTarget) =>
    checkTenantWrite(policy, verb, target, await cluster.namespaced(target.apiVersion, target.kind));
  const written = (object: ObjectHeader): WriteTarget => objectRef(object);
  return {
    get: (ref) => cluster.get(ref),
    list: (request) => cluster.list(request),
    namespaced: (apiVersion, kind) => cluster.namespaced(apiVersion, kind),
    async create(object) {
      await check('create', written(object));
      return cluster.create(object);
    },
    async replace(object, subresource) {
      await check('update', written(object));
      return cluster.replace(object, subresource);
    },
    async delete(ref, preconditions) {
      await check('delete', ref);
      return cluster.delete(ref, preconditions);
    },
  };
}
