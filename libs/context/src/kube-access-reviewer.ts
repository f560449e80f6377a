/**
 * Authorization questions asked of the API server as SubjectAccessReviews: CEL `authorizer` checks
 * of validate.cel rules (what Kubernetes' own admission CEL does through its authorizer), and
 * whether the background or cleanup controller may do what a policy needs of it.
 */
import type { AccessReviewDecision, AccessReviewer, AccessReviewRequest } from '@edict/engine';
import type { KubeResources } from '@edict/kube';

export const ACCESS_REVIEW_TIMEOUT_MS = 2_000;

export class KubeAccessReviewer implements AccessReviewer {
  constructor(private readonly resources: Pick<KubeResources, 'http'>) {}

  async review(request: AccessReviewRequest): Promise<AccessReviewDecision> {
    const { user, groups, uid, extra, resourceAttributes, nonResourceAttributes } = request;
    const answer = await this.resources.http.json<{ status?: Partial<AccessReviewDecision> }>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user, groups, uid, extra, resourceAttributes, nonResourceAttributes },
      },
      totalTimeoutMs: ACCESS_REVIEW_TIMEOUT_MS,
      maxResponseBytes: 64 * 1024,
    });
    const status = answer.status ?? {};
    return {
      allowed: status.allowed === true,
      ...(status.denied ? { denied: true } : {}),
      ...(status.reason ? { reason: status.reason } : {}),
      ...(status.evaluationError ? { evaluationError: status.evaluationError } : {}),
    };
  }
}
