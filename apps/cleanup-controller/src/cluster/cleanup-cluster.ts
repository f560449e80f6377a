/**
 * What the cleanup controller reads and writes in the cluster, as a port (a typed fake in specs):
 * the types a kind selector names (API discovery, as Kyverno resolves kinds), listing and deleting
 * objects, namespace labels, and whether this controller may list, watch and delete a type
 * (SelfSubjectAccessReview: the kinds the controller may touch are what its RBAC grants).
 */
import type { DeletionPropagationPolicy } from '@edict/engine';
import { isNotFound, type KubeResources, DiscoveryResolver, servedTypes, type ServedType } from '@edict/kube';
import { type KubeObject, type ObjectHeader } from '@edict/foundation';

export type ObjectType = ServedType;

export interface CleanupCluster {
  /** The served types a kind selector (`Pod`, `apps/v1/Deployment`, `*`) names; subresources name none. */
  typesOf(selector: string): Promise<ObjectType[]>;
  /** Objects of a type (in `namespace` only when given), at most `limit` (more: an error). */
  list(type: ObjectType, namespace: string | undefined, limit: number, labelSelector?: string): Promise<KubeObject[]>;
  /** Labels of a namespace, `{}` when it is gone. */
  namespaceLabels(name: string): Promise<Record<string, string>>;
  /** A Namespace object (DeletingPolicies' namespaceSelector and `namespaceObject`), null when it is gone. */
  namespace(name: string): Promise<KubeObject | null>;
  /** Deletes this very object (its uid); false when it was already gone. */
  delete(object: KubeObject, propagation?: DeletionPropagationPolicy): Promise<boolean>;
  /** Whether this controller may do every one of `verbs` on the type, cluster-wide. */
  allowed(type: ObjectType, verbs: readonly string[]): Promise<boolean>;
}

export class TooManyTargetsError extends Error {}

export function kubeCleanupCluster(resources: KubeResources): CleanupCluster {
  const discovery = new DiscoveryResolver(resources.http);
  return {
    typesOf: (selector) => servedTypes(discovery, selector),
    async list(type, namespace, limit, labelSelector) {
      const items: KubeObject[] = [];
      let next: string | undefined;
      do {
        const page = await resources.listPage(
          { apiVersion: type.apiVersion, kind: type.kind, ...(namespace ? { namespace } : {}) },
          { limit: 500, ...(next ? { continue: next } : {}), ...(labelSelector ? { labelSelector } : {}) },
        );
        items.push(...page.items);
        if (items.length > limit)
          throw new TooManyTargetsError(`more than ${limit} ${type.kind} objects to look at (maxTargetsPerRun)`);
        next = page.continue;
      } while (next);
      return items;
    },
    async namespaceLabels(name) {
      try {
        const namespace = await resources.get<KubeObject>({ apiVersion: 'v1', kind: 'Namespace', name });
        return namespace.metadata?.labels ?? {};
      } catch (error) {
        if (isNotFound(error)) return {};
        throw error;
      }
    },
    async namespace(name) {
      try {
        return await resources.get<KubeObject>({ apiVersion: 'v1', kind: 'Namespace', name });
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },
    async delete(object, propagation) {
      const { name = '', namespace, uid } = object.metadata ?? {};
      try {
        await resources.delete(
          { apiVersion: object.apiVersion ?? '', kind: object.kind ?? '', name, ...(namespace ? { namespace } : {}) },
          { ...(uid ? { preconditions: { uid } } : {}), ...(propagation ? { propagationPolicy: propagation } : {}) },
        );
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    },
    async allowed(type, verbs) {
      const answers = await Promise.all(
        verbs.map((verb) =>
          resources.create<ObjectHeader & { spec: unknown; status?: { allowed?: boolean } }>({
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: { resourceAttributes: { group: type.group, version: type.version, resource: type.resource, verb } },
          }),
        ),
      );
      return answers.every((review) => review.status?.allowed === true);
    },
  };
}
