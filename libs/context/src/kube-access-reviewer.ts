/**
 * Authorization questions asked of the API server: as SubjectAccessReviews about the user asked of
 * (CEL `authorizer` checks of validate.cel rules, as Kubernetes' own admission CEL does; whether the
 * background controller may write what a policy needs), or, for `self`, as SelfSubjectAccessReviews
 * about the caller (whether the cleanup controller itself may delete what a policy matches, as
 * Kyverno asks; the request's user fields are then not used). Either kind answers the same way.
 */
import type { AccessReviewer } from '@edict/engine';
import type { AccessReviewDecision, AccessReviewRequest } from '@edict/cel';
import type { KubeResources } from '@edict/kube';

export const ACCESS_REVIEW_TIMEOUT_MS = 2_000;

export class KubeAccessReviewer implements AccessReviewer {
  constructor(
    private readonly resources: Pick<KubeResources, 'http'>,
    private readonly about: 'subject' | 'self' = 'subject',
  ) {}

  async review(request: AccessReviewRequest): Promise<AccessReviewDecision> {
    const { user, groups, uid, extra, resourceAttributes, nonResourceAttributes } = request;
    const self = this.about === 'self';
    const answer = await this.resources.http.json<{ status?: Partial<AccessReviewDecision> }>({
      method: 'POST',
      path: `/apis/authorization.k8s.io/v1/${self ? 'selfsubjectaccessreviews' : 'subjectaccessreviews'}`,
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: self ? 'SelfSubjectAccessReview' : 'SubjectAccessReview',
        spec: self
          ? { resourceAttributes, nonResourceAttributes }
          : { user, groups, uid, extra, resourceAttributes, nonResourceAttributes },
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
