/**
 * The cleanup controller's validation webhook: a CleanupPolicy or ClusterCleanupPolicy its CRD
 * refuses (enum, type, required or undeclared field) is refused in the API server's words; one with
 * errors Kyverno finds in code is refused with the reason naming the field. The cluster-scoped kinds a namespaced policy may not
 * name come from API discovery, as Kyverno's do. A valid policy is then refused when this
 * controller may not delete or list what it matches (SelfSubjectAccessReviews, as Kyverno asks).
 * DeletingPolicies and NamespacedDeletingPolicies get the same two checks (deleting-policy-admission.ts).
 */
import { Injectable } from '@nestjs/common';
import { answerValidation, decisionFrom, deny, type ReviewAnswer } from '@edict/admission';
import { KubeAccessReviewer } from '@edict/context';
import { checkCleanupPermissions, validateCleanupPolicy, type CleanupPolicy } from '@edict/engine';
import { isDeletingPolicy } from '@edict/cel-policies';
import { isError, errorMessage, type KubeObject } from '@edict/foundation';
import { KubeResources } from '@edict/kube';
import { kubeCleanupCluster, type CleanupCluster } from '../cluster/cleanup-cluster';
import { deletingPolicyAdmission } from './deleting-policy-admission';

@Injectable()
export class CleanupPolicyValidation {
  private readonly cluster: CleanupCluster;
  private readonly reviewer: KubeAccessReviewer;

  constructor(resources: KubeResources) {
    this.cluster = kubeCleanupCluster(resources);
    this.reviewer = new KubeAccessReviewer(resources, 'self');
  }

  validate(body: unknown): Promise<ReviewAnswer> {
    return answerValidation(body, async (request) => {
      if (request.object && isDeletingPolicy(request.object)) {
        return deletingPolicyAdmission(request.object as unknown as KubeObject, this.cluster, this.reviewer);
      }
      const policy = request.object as unknown as CleanupPolicy;
      let clusterScopedKinds: string[];
      try {
        clusterScopedKinds = (await this.cluster.typesOf('*')).filter((t) => !t.namespaced).map((t) => t.kind);
      } catch (error) {
        return deny(`could not list the cluster's kinds (API discovery): ${errorMessage(error)}`);
      }
      const diagnostics = validateCleanupPolicy(policy, { clusterScopedKinds });
      if (diagnostics.some(isError)) return decisionFrom(diagnostics);
      const permissions = await checkCleanupPermissions(policy, {
        reviewer: this.reviewer,
        resolve: async (kind) => this.cluster.typesOf(kind),
      });
      return decisionFrom([...diagnostics, ...permissions]);
    });
  }
}
