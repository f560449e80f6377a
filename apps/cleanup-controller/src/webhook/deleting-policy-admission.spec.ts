import { describe, expect, it } from 'vitest';
import type { AccessReviewer } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import { FakeCleanupCluster } from '../testing/fake-cleanup-cluster';
import { deletingPolicyAdmission } from './deleting-policy-admission';

function dpol(resources: string[], extra: Record<string, unknown> = {}, namespace?: string): KubeObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedDeletingPolicy' : 'DeletingPolicy',
    metadata: { name: 'p', ...(namespace ? { namespace } : {}) },
    spec: {
      schedule: '*/1 * * * *',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources }] },
      ...extra,
    },
  } as KubeObject;
}

type AccessReviewRequest = Parameters<AccessReviewer['review']>[0];

/** Allows what `granted` holds (`verb resource`), and remembers every question. */
function reviewer(granted: string[]): AccessReviewer & { asked: AccessReviewRequest[] } {
  const asked: AccessReviewRequest[] = [];
  return {
    asked,
    review: (request) => {
      asked.push(request);
      const attributes = request.resourceAttributes;
      return { allowed: granted.includes(`${attributes?.verb} ${attributes?.resource}`) };
    },
  };
}

describe('deletingPolicyAdmission', () => {
  it('admits a policy the controller may carry out, without warnings', async () => {
    const decision = await deletingPolicyAdmission(
      dpol(['pods']),
      new FakeCleanupCluster([]),
      reviewer(['list pods', 'delete pods']),
    );
    expect(decision).toEqual({ allowed: true });
  });

  it('admits, as Kyverno does, a namespaced policy on a kind the controller may not delete, warning of each missing permission', async () => {
    const checks = reviewer(['list pods']);
    const decision = await deletingPolicyAdmission(dpol(['pods'], {}, 'team-a'), new FakeCleanupCluster([]), checks);
    expect(decision).toEqual({
      allowed: true,
      warnings: [
        'NamespacedDeletingPolicy/p: cleanup controller has no permission to delete kind Pod in namespace team-a: it deletes nothing of this kind until granted',
      ],
    });
    expect(checks.asked.map((request) => request.resourceAttributes?.namespace)).toEqual(['team-a', 'team-a']);
  });

  it('warns when no served kind is matched, or a permission cannot be checked', async () => {
    const none = await deletingPolicyAdmission(dpol(['pods']), new FakeCleanupCluster([], []), reviewer([]));
    expect(none).toEqual({
      allowed: true,
      warnings: ['DeletingPolicy/p: cleanup controller found no served resource its matchConstraints name'],
    });
    const broken: AccessReviewer = {
      review: () => {
        throw new Error('connection refused');
      },
    };
    const unchecked = await deletingPolicyAdmission(dpol(['pods']), new FakeCleanupCluster([]), broken);
    expect(unchecked.allowed).toBe(true);
    expect(unchecked.warnings?.[0]).toBe(
      'DeletingPolicy/p: cleanup controller could not check its permission to list kind Pod: connection refused',
    );
  });

  it('refuses a policy that does not compile, naming the field', async () => {
    const decision = await deletingPolicyAdmission(
      dpol(['pods'], { conditions: [{ name: 'broken', expression: 'object.metadata.name ==' }] }),
      new FakeCleanupCluster([]),
      reviewer(['list pods', 'delete pods']),
    );
    expect(decision.allowed).toBe(false);
    expect(decision.message).toMatch(/^spec\.conditions\[0\]\.expression: Invalid value/);
  });
});
