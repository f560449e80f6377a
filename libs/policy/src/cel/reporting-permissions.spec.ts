import { describe, expect, it } from 'vitest';
import type { AccessReviewDecision, AccessReviewRequest } from '@edict/cel';
import type { AccessReviewer } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import { AccessReviewReportingPermissions, MAX_CHECKED_RESOURCES } from './reporting-permissions';
import type { CelPolicyEntry } from './cel-policy-store';

const USER = 'system:serviceaccount:kyverno:kyverno-reports-controller';

/** An authorizer granting get/list/watch on the listed resources only. */
class FakeReviewer implements AccessReviewer {
  readonly asked: AccessReviewRequest[] = [];
  constructor(
    private readonly granted: readonly string[],
    private readonly failing: readonly string[] = [],
  ) {}
  review(request: AccessReviewRequest): AccessReviewDecision {
    this.asked.push(request);
    const resource = request.resourceAttributes!.resource;
    if (this.failing.includes(resource)) throw new Error('connection refused');
    return this.granted.includes(resource) ? { allowed: true } : { allowed: false };
  }
}

function entry(resourceRules: unknown[]): CelPolicyEntry {
  const object = {
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'ValidatingPolicy',
    metadata: { name: 'p', generation: 1 },
    spec: { matchConstraints: { resourceRules } },
  } as unknown as KubeObject;
  return {
    key: 'ValidatingPolicy/p',
    kind: 'ValidatingPolicy',
    name: 'p',
    object,
    errors: [],
  } as unknown as CelPolicyEntry;
}

const rule = (apiGroups: string[], resources: string[], apiVersions = ['v1']) => ({
  apiGroups,
  apiVersions,
  operations: ['CREATE'],
  resources,
});

describe('AccessReviewReportingPermissions', () => {
  it("names each verb denied on each resource as Kyverno does, asking about the reports controller's account", async () => {
    const reviewer = new FakeReviewer(['pods']);
    const missing = await new AccessReviewReportingPermissions(reviewer, USER).missing(
      entry([rule([''], ['pods', 'pods/ephemeralcontainers'])]),
    );
    expect(missing).toEqual([
      'get /v1, Resource=pods/ephemeralcontainers: ',
      'list /v1, Resource=pods/ephemeralcontainers: ',
      'watch /v1, Resource=pods/ephemeralcontainers: ',
    ]);
    expect(reviewer.asked).toHaveLength(6);
    expect(reviewer.asked[0]).toEqual({
      user: USER,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kyverno', 'system:authenticated'],
      resourceAttributes: { group: '', version: 'v1', resource: 'pods', verb: 'get' },
    });
  });

  it('grants nothing it could not ask about, and bounds the reviews a policy costs', async () => {
    const failing = await new AccessReviewReportingPermissions(new FakeReviewer([], ['deployments']), USER).missing(
      entry([rule(['apps'], ['deployments'])]),
    );
    expect(failing[0]).toBe('get apps/v1, Resource=deployments: the access review failed: connection refused');
    const many = Array.from({ length: MAX_CHECKED_RESOURCES + 3 }, (_, i) => `kind${i}`);
    const reviewer = new FakeReviewer(many);
    const missing = await new AccessReviewReportingPermissions(reviewer, USER).missing(entry([rule(['x.io'], many)]));
    expect(missing).toEqual([`3 more resources not checked (at most ${MAX_CHECKED_RESOURCES})`]);
    expect(reviewer.asked).toHaveLength(MAX_CHECKED_RESOURCES * 3);
  });

  it('is satisfied when every resource is readable (repeats asked once)', async () => {
    const reviewer = new FakeReviewer(['deployments']);
    const permissions = new AccessReviewReportingPermissions(reviewer, USER);
    expect(
      await permissions.missing(entry([rule(['apps'], ['deployments']), rule(['apps'], ['deployments'])])),
    ).toEqual([]);
    expect(reviewer.asked).toHaveLength(3);
  });
});
