/**
 * End to end (issue 32, "a policy that becomes invalid stops being enforced"): an Enforce policy whose
 * stored version stops validating keeps denying, on the embedded cluster.
 *  - A cluster-scoped CRD of another group with kind `Pod` does not make a namespaced Policy on Pods
 *    invalid: scope is compared by group, version and kind.
 *  - A ClusterPolicy made invalid by a write the policy-validation webhook never judged (as a policy
 *    stored before validation got stricter would be) keeps its last valid version enforced, says so
 *    in its status and in a PolicyError event; a fix enforces the new version, a deletion stops it.
 *  - A replica that starts while the policy is invalid (no last valid version in memory) enforces its
 *    Enforce validate rules as written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { eventually } from '@edict/kube/testing';
import { PolicyCache, PolicyStatusWriter } from '@edict/policy';
import { CustomResourceDefinitions } from '@edict/kube';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import {
  apiErrorMessage,
  clusterPolicy,
  E2E_NAMESPACE,
  E2E_SERVICE,
  testPod,
  waitForWebhook,
} from '@edict/controller-runtime/testing';

interface PolicyView {
  metadata: { name: string; resourceVersion: string; generation?: number };
  spec: { rules: JsonObject[] };
  status?: { conditions?: Array<Record<string, unknown>> };
}

const requireLabel = (label: string) => ({
  name: `check-${label}`,
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  validate: { message: `label '${label}' is required`, pattern: { metadata: { labels: { [label]: '?*' } } } },
});
/** What validation refuses (a rule of no type); the webhook would have refused the write. */
const untypedRule = { name: 'untyped', match: { any: [{ resources: { kinds: ['Pod'] } }] } };

describe('an Enforce policy that turns invalid keeps denying', () => {
  let cluster: E2eCluster;
  let leader: RunningController;

  const storedClusterPolicy = (name: string) =>
    cluster.apiServer.get('kyverno.io/v1', 'ClusterPolicy', name) as unknown as PolicyView | undefined;
  const storedPolicy = (namespace: string, name: string) =>
    cluster.apiServer.get('kyverno.io/v1', 'Policy', name, namespace) as unknown as PolicyView | undefined;
  const ready = (view: PolicyView | undefined) => view?.status?.conditions?.find((c) => c.type === 'Ready');
  /** Creates a Pod through the API server (so through the webhooks); the denial message, or undefined. */
  const denial = async (namespace: string, name: string, labels: Record<string, string> = {}) => {
    try {
      await cluster.core.createNamespacedPod({ namespace, body: testPod(name, labels, namespace) });
    } catch (error) {
      return apiErrorMessage(error);
    }
    await cluster.core.deleteNamespacedPod({ namespace, name });
    return undefined;
  };
  /** A write straight to storage: the policy-validation webhook never sees it. */
  const writePastValidation = (name: string, rules: JsonObject[]) => {
    const current = storedClusterPolicy(name)!;
    return cluster.apiServer.update({
      ...current,
      spec: { ...current.spec, rules },
    } as unknown as JsonObject) as unknown as PolicyView;
  };
  const invalidEntry = (replica: RunningController, key: string) =>
    replica.app.get(PolicyCache).snapshot().invalid.get(key);

  beforeAll(async () => {
    cluster = await startE2eCluster();
    leader = await cluster.startReplica();
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    cluster.apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  }, 30_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('a CRD of another group with kind Pod leaves a namespaced Enforce Policy on Pods valid and denying', async () => {
    await cluster.custom.createNamespacedCustomObject({
      group: 'kyverno.io',
      version: 'v1',
      namespace: 'team-a',
      plural: 'policies',
      body: {
        apiVersion: 'kyverno.io/v1',
        kind: 'Policy',
        metadata: { name: 'require-team', namespace: 'team-a' },
        spec: { validationFailureAction: 'Enforce', background: false, rules: [requireLabel('team')] },
      },
    });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
    await eventually(() => ready(storedPolicy('team-a', 'require-team'))?.status === 'True', 'Policy Ready', 15_000);
    expect(await denial('team-a', 'unlabelled')).toContain('require-team');

    // An operator adds a CRD whose kind is also Pod, cluster-scoped, in another group.
    await cluster.custom.createClusterCustomObject({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'pods.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Cluster',
          names: { plural: 'pods', singular: 'pod', kind: 'Pod', listKind: 'PodList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      },
    });
    const cache = leader.app.get(PolicyCache);
    await eventually(
      () =>
        leader.app.get(CustomResourceDefinitions).clusterScopedKinds().includes('example.com/v1/Pod') &&
        cache.settings().clusterScopedKinds.includes('example.com/v1/Pod'),
      'the CRD judged by the cache',
    );
    expect(cache.invalidPolicies().map((p) => p.key)).not.toContain('team-a/require-team');
    expect(cache.policies().map((p) => p.key)).toContain('team-a/require-team');
    expect(await denial('team-a', 'still-unlabelled')).toContain('require-team');
    expect(await denial('team-a', 'labelled', { team: 'a' })).toBeUndefined();
    await leader.app.get(PolicyStatusWriter).sync();
    expect(ready(storedPolicy('team-a', 'require-team'))).toMatchObject({ status: 'True', reason: 'Succeeded' });

    // The policy-validation webhook judges the same way: core Pod is namespaced, example.com's Pod is not.
    const namespacedPolicy = (name: string, kind: string) =>
      cluster.custom.createNamespacedCustomObject({
        group: 'kyverno.io',
        version: 'v1',
        namespace: 'team-a',
        plural: 'policies',
        body: {
          apiVersion: 'kyverno.io/v1',
          kind: 'Policy',
          metadata: { name, namespace: 'team-a' },
          spec: {
            validationFailureAction: 'Enforce',
            background: false,
            rules: [{ ...requireLabel('owner'), match: { any: [{ resources: { kinds: [kind] } }] } }],
          },
        },
      });
    await expect(namespacedPolicy('core-pods', 'Pod')).resolves.toBeTruthy();
    const refused = await namespacedPolicy('crd-pods', 'example.com/v1/Pod').catch((e: unknown) => e);
    expect(apiErrorMessage(refused)).toContain(
      "Cluster wide resource 'example.com/v1/Pod' not allowed in namespaced policy",
    );
  }, 60_000);

  it('keeps the last valid version enforced, says so in status and an event; a fix enforces the new one', async () => {
    await cluster.createClusterPolicy(
      clusterPolicy('require-owner', {
        validationFailureAction: 'Enforce',
        background: false,
        rules: [requireLabel('owner')],
      }),
    );
    await eventually(() => ready(storedClusterPolicy('require-owner'))?.status === 'True', 'Ready', 15_000);
    const lastValid = storedClusterPolicy('require-owner')!;
    expect(await denial('default', 'no-owner')).toContain('require-owner');

    const broken = writePastValidation('require-owner', [...lastValid.spec.rules, untypedRule]);
    await eventually(() => invalidEntry(leader, 'require-owner')?.enforced?.basis === 'last-valid', 'held', 10_000);
    const message = await denial('default', 'no-owner-after');
    expect(message).toContain('resource Pod/default/no-owner-after was blocked due to the following policies');
    expect(message).toContain('require-owner:');
    expect(await denial('default', 'owned', { owner: 'me' })).toBeUndefined();

    const expected =
      `Not Ready: the policy is invalid; its last valid version (resourceVersion ${lastValid.metadata.resourceVersion}, ` +
      `generation ${lastValid.metadata.generation}) is still enforced until the policy is fixed or deleted: ` +
      "spec.rules[1]: No operation defined in the rule 'untyped'";
    await eventually(
      () => String(ready(storedClusterPolicy('require-owner'))?.message ?? '').startsWith(expected),
      'the status saying the last valid version is enforced',
      15_000,
    );
    expect(ready(storedClusterPolicy('require-owner'))).toMatchObject({ status: 'False', reason: 'Failed' });
    expect(storedClusterPolicy('require-owner')!.metadata.generation).toBe(broken.metadata.generation);
    const policyErrors = () =>
      cluster.apiServer
        .list('events.k8s.io/v1', 'Event')
        .filter(
          (e) =>
            e.reason === 'PolicyError' &&
            (e.regarding as JsonObject).kind === 'ClusterPolicy' &&
            (e.regarding as JsonObject).name === 'require-owner',
        );
    await eventually(() => policyErrors().length === 1, 'one PolicyError event', 15_000);
    expect(policyErrors()[0]).toMatchObject({ type: 'Warning', action: 'None' });
    expect(policyErrors()[0]!.note).toBe(
      String(ready(storedClusterPolicy('require-owner'))!.message).replace(/^Not Ready: /, ''),
    );
    expect(String(policyErrors()[0]!.note)).toContain('is still enforced until the policy is fixed or deleted');

    // The leader's next pass (and another leader's) writes nothing: the status already says it.
    expect(await leader.app.get(PolicyStatusWriter).sync()).toMatchObject({ status: 'done', failed: [] });
    const version = storedClusterPolicy('require-owner')!.metadata.resourceVersion;
    const again = await leader.app.get(PolicyStatusWriter).sync();
    expect((again as { written?: string[] }).written ?? []).not.toContain('require-owner');
    expect(storedClusterPolicy('require-owner')!.metadata.resourceVersion).toBe(version);

    // Fixed through the API (and the validation webhook): the new version is enforced.
    const current = storedClusterPolicy('require-owner')!;
    await cluster.custom.replaceClusterCustomObject({
      group: 'kyverno.io',
      version: 'v1',
      plural: 'clusterpolicies',
      name: 'require-owner',
      body: { ...current, spec: { ...current.spec, rules: [requireLabel('tier')] } },
    });
    await eventually(
      () => !invalidEntry(leader, 'require-owner') && ready(storedClusterPolicy('require-owner'))?.status === 'True',
      'fixed and Ready',
      15_000,
    );
    expect(await denial('default', 'owner-no-tier', { owner: 'me' })).toContain('check-tier:');
    expect(await denial('default', 'tiered', { tier: 'web' })).toBeUndefined();
  }, 60_000);

  it('stops enforcing a policy held this way once it is deleted', async () => {
    const current = storedClusterPolicy('require-owner')!;
    writePastValidation('require-owner', [...current.spec.rules, untypedRule]);
    await eventually(() => invalidEntry(leader, 'require-owner')?.enforced?.basis === 'last-valid', 'held', 10_000);
    expect(await denial('default', 'untiered')).toContain('require-owner');
    await cluster.deleteClusterPolicy('require-owner');
    await eventually(() => invalidEntry(leader, 'require-owner') === undefined, 'gone from the cache');
    expect(await denial('default', 'free')).toBeUndefined();
  }, 60_000);

  it('a replica started while the policy is invalid enforces its Enforce validate rules as written', async () => {
    await cluster.createClusterPolicy(
      clusterPolicy('require-app', {
        validationFailureAction: 'Enforce',
        background: false,
        rules: [requireLabel('app')],
      }),
    );
    const stored = storedClusterPolicy('require-app')!;
    writePastValidation('require-app', [...stored.spec.rules, untypedRule]);
    await eventually(() => invalidEntry(leader, 'require-app')?.enforced?.basis === 'last-valid', 'held', 10_000);

    // The Service now points at the new replica, which never saw a valid version.
    const fresh = await cluster.startReplica();
    try {
      await eventually(
        () => invalidEntry(fresh, 'require-app')?.enforced?.basis === 'enforcing-validate-rules',
        'the fresh replica enforcing the stored validate rules',
        10_000,
      );
      expect(await denial('default', 'no-app')).toContain('check-app:');
      expect(await denial('default', 'with-app', { app: 'web' })).toBeUndefined();
    } finally {
      await fresh.stop();
      cluster.routeService(E2E_NAMESPACE, E2E_SERVICE, leader.port);
    }
  }, 60_000);
});
