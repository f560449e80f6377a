import { describe, expect, it } from 'vitest';
import type { KubeHttpRequest, KubeResources } from '@edict/kube';
import { ACCESS_REVIEW_TIMEOUT_MS, KubeAccessReviewer } from './kube-access-reviewer';

function reviewer(status: unknown, about: 'subject' | 'self' = 'subject') {
  const requests: KubeHttpRequest[] = [];
  const resources = {
    http: {
      json: async (request: KubeHttpRequest) => {
        requests.push(request);
        return { status };
      },
    },
  } as unknown as Pick<KubeResources, 'http'>;
  return { reviewer: new KubeAccessReviewer(resources, about), requests };
}

describe('KubeAccessReviewer', () => {
  it('posts a SubjectAccessReview for the question and returns its status', async () => {
    const { reviewer: sar, requests } = reviewer({ allowed: false, denied: true, reason: 'no binding' });
    const question = {
      user: 'system:serviceaccount:default:bot',
      groups: ['system:serviceaccounts'],
      resourceAttributes: { group: 'apps', resource: 'deployments', namespace: 'default', verb: 'delete' },
    };
    expect(await sar.review(question)).toEqual({ allowed: false, denied: true, reason: 'no binding' });
    expect(requests).toEqual([
      {
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { ...question, uid: undefined, extra: undefined, nonResourceAttributes: undefined },
        },
        totalTimeoutMs: ACCESS_REVIEW_TIMEOUT_MS,
        maxResponseBytes: 64 * 1024,
      },
    ]);
  });

  it('asks about the caller itself with a SelfSubjectAccessReview, leaving the user fields out', async () => {
    const { reviewer: self, requests } = reviewer({ allowed: true }, 'self');
    const resourceAttributes = { group: '', resource: 'pods', verb: 'list' };
    expect(await self.review({ user: '', resourceAttributes })).toEqual({ allowed: true });
    expect(requests[0]).toMatchObject({
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      body: { kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } },
    });
    expect(Object.keys((requests[0]!.body as { spec: object }).spec)).toEqual([
      'resourceAttributes',
      'nonResourceAttributes',
    ]);
  });

  it('reads a missing or odd status as not allowed', async () => {
    expect(await reviewer(undefined).reviewer.review({ user: 'u' })).toEqual({ allowed: false });
    expect(await reviewer({ allowed: 'yes', evaluationError: 'webhook down' }).reviewer.review({ user: 'u' })).toEqual({
      allowed: false,
      evaluationError: 'webhook down',
    });
  });
});
