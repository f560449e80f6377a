import { compileMutatingPolicy, type MutatingPolicySpec } from '@edict/cel-policies';
import type { ResourceRequest } from '@edict/engine';
import type { JsonObject, KubeObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { mutateExistingRequests } from './mutate-existing-requests';

const BACKGROUND = 'system:serviceaccount:kyverno:kyverno-background-controller';

function policy(name: string, spec: MutatingPolicySpec & JsonObject, namespace?: string) {
  return compileMutatingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec,
  } as unknown as KubeObject);
}

const onSecretUpdate = (extra: JsonObject = {}): MutatingPolicySpec & JsonObject => ({
  evaluation: { mutateExisting: { enabled: true } },
  matchConstraints: {
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['secrets'] }],
  },
  targetMatchConstraints: {
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['configmaps'] }],
  },
  mutations: [
    {
      patchType: 'ApplyConfiguration',
      applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}' },
    },
  ],
  ...extra,
});

const secret: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'trigger', namespace: 'team-a', uid: 'secret-uid', resourceVersion: '7' },
};

function update(username = 'alice', operation: 'UPDATE' | 'CREATE' = 'UPDATE', dryRun = false): ResourceRequest {
  const admissionRequest = {
    uid: 'review-1',
    kind: { group: '', version: 'v1', kind: 'Secret' },
    resource: { group: '', version: 'v1', resource: 'secrets' },
    namespace: 'team-a',
    name: 'trigger',
    operation,
    userInfo: { username },
    object: secret,
    oldObject: secret,
    dryRun,
  };
  return {
    operation,
    resource: secret,
    oldResource: secret,
    user: { userInfo: { username }, roles: ['team-a:editor'], clusterRoles: [] },
    admissionRequest: admissionRequest as unknown as JsonObject,
  };
}

const context = { ports: {} };

describe('mutateExistingRequests', () => {
  it('asks one cel-mutate UpdateRequest per policy the request fires, with the requester and the admission request', async () => {
    const specs = await mutateExistingRequests(
      update(),
      [policy('cluster', onSecretUpdate()), policy('tenant', onSecretUpdate(), 'team-a')],
      context,
    );
    expect(specs.map((spec) => [spec.requestType, spec.policy])).toEqual([
      ['cel-mutate', 'cluster'],
      ['cel-mutate', 'team-a/tenant'],
    ]);
    const [first] = specs;
    expect(first?.resource).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: 'team-a',
      name: 'trigger',
      uid: 'secret-uid',
    });
    expect(first?.context.userInfo).toEqual({ userInfo: { username: 'alice' }, roles: ['team-a:editor'] });
    expect(first?.context.admissionRequestInfo.operation).toBe('UPDATE');
    expect(first?.context.admissionRequestInfo.admissionRequest?.uid).toBe('review-1');
  });

  it('asks nothing for policies the request does not fire, nor for those without mutateExisting', async () => {
    const specs = await mutateExistingRequests(
      update('alice', 'CREATE'),
      [
        policy('update-only', onSecretUpdate()),
        policy('disabled', onSecretUpdate({ evaluation: { mutateExisting: { enabled: false } } })),
        policy('elsewhere', onSecretUpdate(), 'team-b'),
        policy(
          'condition-false',
          onSecretUpdate({ matchConditions: [{ name: 'never', expression: 'object.metadata.name == "other"' }] }),
        ),
      ],
      context,
    );
    expect(specs).toEqual([]);
    const conditioned = await mutateExistingRequests(
      update(),
      [
        policy(
          'condition-false',
          onSecretUpdate({ matchConditions: [{ name: 'never', expression: 'object.metadata.name == "other"' }] }),
        ),
        policy(
          'condition-true',
          onSecretUpdate({ matchConditions: [{ name: 'named', expression: 'object.metadata.name == "trigger"' }] }),
        ),
      ],
      context,
    );
    expect(conditioned.map((spec) => spec.policy)).toEqual(['condition-true']);
  });

  it('asks nothing for a dry run', async () => {
    expect(
      await mutateExistingRequests(update('alice', 'UPDATE', true), [policy('p', onSecretUpdate())], context),
    ).toEqual([]);
  });

  it("skips the background controller's own requests unless the policy opts in", async () => {
    const policies = [
      policy('default', onSecretUpdate()),
      policy(
        'optin',
        onSecretUpdate({ evaluation: { mutateExisting: { enabled: true }, skipBackgroundRequests: false } }),
      ),
    ];
    const specs = await mutateExistingRequests(update(BACKGROUND), policies, context, {
      backgroundUsername: BACKGROUND,
    });
    expect(specs.map((spec) => spec.policy)).toEqual(['optin']);
    const fromUser = await mutateExistingRequests(update(), policies, context, { backgroundUsername: BACKGROUND });
    expect(fromUser.map((spec) => spec.policy)).toEqual(['default', 'optin']);
  });
});
