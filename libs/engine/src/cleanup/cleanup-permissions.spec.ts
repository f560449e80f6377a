import { describe, expect, it } from 'vitest';
import type { AccessReviewRequest } from '@edict/cel';
import type { CleanupPolicy } from './cleanup-policy';
import { checkCleanupPermissions, type CleanupPermissionOptions } from './cleanup-permissions';

const RESOURCES: Record<string, Array<{ group: string; resource: string }>> = {
  Pod: [{ group: '', resource: 'pods' }],
  'apps/v1/Deployment': [{ group: 'apps', resource: 'deployments' }],
};

function policy(kinds: string[], namespace?: string): CleanupPolicy {
  return {
    kind: namespace ? 'CleanupPolicy' : 'ClusterCleanupPolicy',
    metadata: { name: 'p', ...(namespace ? { namespace } : {}) },
    spec: { match: { any: [{ resources: { kinds } }] }, schedule: '*/1 * * * *' },
  };
}

/** A reviewer granting `granted` (`verb resource`), recording every question. */
function options(granted: string[]): CleanupPermissionOptions & { asked: AccessReviewRequest[] } {
  const asked: AccessReviewRequest[] = [];
  return {
    asked,
    reviewer: {
      review: (request) => {
        asked.push(request);
        const { verb, resource } = request.resourceAttributes!;
        return { allowed: granted.includes(`${verb} ${resource}`) };
      },
    },
    resolve: async (kind) => RESOURCES[kind] ?? [],
  };
}

const messages = async (p: CleanupPolicy, o: CleanupPermissionOptions) =>
  (await checkCleanupPermissions(p, o)).map((d) => d.message);

describe('checkCleanupPermissions', () => {
  it('admits a policy whose kinds the controller may delete and list, asking in the policy namespace', async () => {
    const granted = options(['delete pods', 'list pods']);
    expect(await messages(policy(['Pod'], 'team'), granted)).toEqual([]);
    expect(granted.asked).toEqual([
      { user: '', resourceAttributes: { group: '', resource: 'pods', verb: 'delete', namespace: 'team' } },
      expect.objectContaining({ resourceAttributes: expect.objectContaining({ verb: 'list' }) }),
    ]);
  });

  it('refuses with Kyverno’s message, delete asked before list', async () => {
    expect(await messages(policy(['Pod', 'apps/v1/Deployment']), options(['delete pods', 'list pods']))).toEqual([
      'cleanup controller has no permission to delete kind apps/v1/Deployment',
    ]);
    expect(await messages(policy(['Pod']), options(['delete pods']))).toEqual([
      'cleanup controller has no permission to list kind Pod',
    ]);
  });

  it('asks about each name a filter restricts its kinds to, so a role limited to those names suffices', async () => {
    const named: CleanupPolicy = {
      kind: 'ClusterCleanupPolicy',
      metadata: { name: 'p' },
      spec: { match: { any: [{ resources: { kinds: ['Pod'], names: ['a', 'b'] } }] }, schedule: '*/1 * * * *' },
    };
    const onlyA: CleanupPermissionOptions = {
      reviewer: { review: ({ resourceAttributes }) => ({ allowed: resourceAttributes?.name === 'a' }) },
      resolve: async (kind) => RESOURCES[kind] ?? [],
    };
    expect(await messages(named, onlyA)).toEqual(['cleanup controller has no permission to delete kind Pod']);
    const granted = options(['delete pods', 'list pods']);
    expect(await messages(named, granted)).toEqual([]);
    expect(
      granted.asked.map((request) => [request.resourceAttributes?.name, request.resourceAttributes?.verb]),
    ).toEqual([
      ['a', 'delete'],
      ['a', 'list'],
      ['b', 'delete'],
      ['b', 'list'],
    ]);
  });

  it('fails closed on a kind that is not served and on a review that cannot be made', async () => {
    expect(await messages(policy(['Gadget']), options([]))).toEqual([
      'cleanup controller found no served resource for kind Gadget',
    ]);
    const broken = {
      ...options([]),
      reviewer: {
        review: () => {
          throw new Error('connection refused');
        },
      },
    };
    expect(await messages(policy(['Pod']), broken)).toEqual([
      'cleanup controller could not check its permission to delete kind Pod: connection refused',
    ]);
  });
});
