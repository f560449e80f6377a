// kube-controller-manager's ClusterRole aggregation against the running server.
import type { JsonObject } from '@edict/foundation';
import { afterEach, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../testing';

let running: RunningCluster | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';

function clusterRole(name: string, labels: Record<string, string>, rules: JsonObject[], extra: JsonObject = {}) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name, labels },
    rules,
    ...extra,
  };
}

const rule = (resource: string, verbs = ['get']): JsonObject => ({ apiGroups: [''], resources: [resource], verbs });

async function rulesOf(name: string): Promise<unknown> {
  await running!.controllerManager.controllers!.settled();
  return (await running!.request('GET', `${ROLES}/${name}`)).body.rules;
}

describe('ClusterRole aggregation controller', () => {
  it("fills an aggregated role with the picked roles' rules (selector by selector, names in order, each rule once) and follows changes", async () => {
    running = await startCluster({ controllers: true });
    const { request } = running;
    await request(
      'POST',
      ROLES,
      clusterRole('controller', {}, [], {
        aggregationRule: {
          clusterRoleSelectors: [{ matchLabels: { 'aggregate-to': 'controller' } }, { matchLabels: { extra: 'yes' } }],
        },
      }),
    );
    await request('POST', ROLES, clusterRole('b-pods', { 'aggregate-to': 'controller' }, [rule('pods')]));
    await request(
      'POST',
      ROLES,
      clusterRole('a-maps', { 'aggregate-to': 'controller' }, [rule('configmaps'), rule('pods')]),
    );
    await request('POST', ROLES, clusterRole('0-extra', { extra: 'yes' }, [rule('secrets')]));
    await request('POST', ROLES, clusterRole('unrelated', {}, [rule('nodes')]));
    expect(await rulesOf('controller')).toEqual([rule('configmaps'), rule('pods'), rule('secrets')]);

    await request('PATCH', `${ROLES}/b-pods`, { rules: [rule('pods', ['delete'])] }, 'application/merge-patch+json');
    expect(await rulesOf('controller')).toEqual([
      rule('configmaps'),
      rule('pods'),
      rule('pods', ['delete']),
      rule('secrets'),
    ]);

    await request('DELETE', `${ROLES}/a-maps`);
    await request(
      'PATCH',
      `${ROLES}/0-extra`,
      { metadata: { labels: { extra: 'no' } } },
      'application/merge-patch+json',
    );
    expect(await rulesOf('controller')).toEqual([rule('pods', ['delete'])]);
  });

  it('settles chains: a role aggregating an aggregated role gets its rules once they are filled', async () => {
    running = await startCluster({ controllers: true });
    const { request } = running;
    const aggregating = (label: string) => ({
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { to: label } }] },
    });
    await request('POST', ROLES, clusterRole('admin', {}, [], aggregating('admin')));
    await request('POST', ROLES, clusterRole('edit', { to: 'admin' }, [], aggregating('edit')));
    await request('POST', ROLES, clusterRole('view', { to: 'edit' }, [rule('pods')]));
    expect(await rulesOf('admin')).toEqual([rule('pods')]);
  });

  it('leaves roles without an aggregationRule alone, and does not run without the controller manager', async () => {
    running = await startCluster();
    await running.request('POST', ROLES, clusterRole('picked', { to: 'x' }, [rule('pods')]));
    await running.request(
      'POST',
      ROLES,
      clusterRole('aggregate', {}, [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { to: 'x' } }] } }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await running.request('GET', `${ROLES}/aggregate`)).body.rules).toEqual([]);
    expect((await running.request('GET', `${ROLES}/picked`)).body.rules).toEqual([rule('pods')]);
  });
});

// Moved from the API server's access review spec: RBAC answers from what the aggregation controller fills in.
describe('access reviews in authorization mode RBAC', () => {
  const SAR = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } },
  };
  const review = (spec: object) =>
    running!.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { ...SAR, spec });
  const rbac = (object: object) => running!.server.create(object as never);
  const allowed = async (spec: object) => ((await review(spec)).body.status as { allowed?: boolean }).allowed;

  it('take aggregated ClusterRoles (as the controller manager fills them), resource names and non-resource URLs into account', async () => {
    running = await startCluster({ authorization: { mode: 'RBAC' }, controllers: true });
    rbac({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'aggregate' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'aggregate-to': 'ops' } }] },
    });
    rbac({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'one-namespace', labels: { 'aggregate-to': 'ops' } },
      rules: [
        { apiGroups: [''], resources: ['namespaces'], resourceNames: ['scratch'], verbs: ['delete'] },
        { nonResourceURLs: ['/healthz/*'], verbs: ['get'] },
      ],
    });
    rbac({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'ops' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'aggregate' },
      subjects: [{ kind: 'Group', name: 'ops' }],
    });
    await running.controllerManager.controllers?.settled();
    const ops = (attributes: object) => allowed({ user: 'carol', groups: ['ops'], ...attributes });
    const deleting = (name: string) => ops({ resourceAttributes: { resource: 'namespaces', name, verb: 'delete' } });
    expect(await deleting('scratch')).toBe(true);
    expect(await deleting('default')).toBe(false);
    expect(await ops({ nonResourceAttributes: { path: '/healthz/ready', verb: 'get' } })).toBe(true);
    const withoutGroup = {
      user: 'carol',
      resourceAttributes: { resource: 'namespaces', name: 'scratch', verb: 'delete' },
    };
    expect(await allowed(withoutGroup)).toBe(false);
  });
});
