/**
 * The cleanup controller's validation webhook: a CleanupPolicy or ClusterCleanupPolicy with errors
 * is refused with the reason naming the field. The cluster-scoped kinds a namespaced policy may not
 * name come from API discovery, as Kyverno's do. A valid policy is then refused when this
 * controller may not delete or list what it matches (SubjectAccessReviews about its username).
 */
import { Inject, Injectable } from '@nestjs/common';
import { answerValidation, decisionFrom, deny, type ReviewAnswer } from '@edict/admission';
import { KubeAccessReviewer } from '@edict/context';
import { checkCleanupPermissions, isError, validateCleanupPolicy, type CleanupPolicy } from '@edict/engine';
import { KubeResources } from '@edict/kube';
import { kubeCleanupCluster, type CleanupCluster } from '../cluster/cleanup-cluster';
import type { CleanupConfig } from '../config/cleanup-config';
import { CLEANUP_CONFIG } from '../config/tokens';

@Injectable()
export class CleanupPolicyValidation {
  private readonly cluster: CleanupCluster;
  private readonly reviewer: KubeAccessReviewer;

  constructor(
    @Inject(CLEANUP_CONFIG) private readonly config: CleanupConfig,
    resources: KubeResources,
  ) {
    this.cluster = kubeCleanupCluster(resources);
    this.reviewer = new KubeAccessReviewer(resources);
  }

  validate(body: unknown): Promise<ReviewAnswer> {
    return answerValidation(body, async (request) => {
      const policy = request.object as unknown as CleanupPolicy;
      let clusterScopedKinds: string[];
      try {
        clusterScopedKinds = (await this.cluster.typesOf('*')).filter((t) => !t.namespaced).map((t) => t.kind);
      } catch (error) {
        return deny(`could not list the cluster's kinds (API discovery): ${messageOf(error)}`);
      }
      const diagnostics = validateCleanupPolicy(policy, { clusterScopedKinds });
      if (diagnostics.some(isError)) return decisionFrom(diagnostics);
      const permissions = await checkCleanupPermissions(policy, {
        user: this.config.username,
        groups: groupsOf(this.config.username),
        reviewer: this.reviewer,
        resolve: async (kind) => this.cluster.typesOf(kind),
      });
      return decisionFrom([...diagnostics, ...permissions]);
    });
  }
}

/** The groups the API server gives a ServiceAccount's token (RBAC may bind any of them). */
function groupsOf(username: string): string[] {
  const account = /^system:serviceaccount:([^:]+):[^:]+$/.exec(username);
  const groups = account ? ['system:serviceaccounts', `system:serviceaccounts:${account[1]}`] : [];
  return [...groups, 'system:authenticated'];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
