/**
 * End to end: the controller writes a policy's status as Kyverno does once its webhooks are
 * published — what Kyverno's chainsaw suite waits on before every test (`status.conditions` Ready
 * / Succeeded) and what its autogen tests read (`status.autogen.rules`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@edict/kube/testing';
import { PolicyStatusWriter } from '@edict/policy';
import { WebhookMonitor } from '@edict/webhook-config';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import { requireLabelPolicy, waitForWebhook } from '@edict/controller-runtime/testing';

interface StatusView {
  metadata: { resourceVersion: string; generation?: number };
  status?: {
    conditions?: Array<Record<string, unknown>>;
    autogen?: { rules?: Array<{ name: string; match: { any: Array<{ resources: { kinds: string[] } }> } }> };
    rulecount?: Record<string, number>;
    validatingadmissionpolicy?: Record<string, unknown>;
  };
}

const CONTROLLER_KINDS = [
  'apps/v1/DaemonSet',
  'apps/v1/Deployment',
  'batch/v1/Job',
  'apps/v1/ReplicaSet',
  'v1/ReplicationController',
  'apps/v1/StatefulSet',
];

describe('policy status written by the admission controller', () => {
  let cluster: E2eCluster;
  let replica: RunningController;

  const clusterPolicyNamed = (name: string, version = 'v1') =>
    cluster.apiServer.get(`kyverno.io/${version}`, 'ClusterPolicy', name) as unknown as StatusView | undefined;
  const policyNamed = (namespace: string, name: string) =>
    cluster.apiServer.get('kyverno.io/v1', 'Policy', name, namespace) as unknown as StatusView | undefined;
  const ready = (view: StatusView | undefined) => view?.status?.conditions?.find((c) => c.type === 'Ready');

  beforeAll(async () => {
    cluster = await startE2eCluster();
    replica = await cluster.startReplica();
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    cluster.apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  }, 30_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('brings a ClusterPolicy and a namespaced Policy to Ready / Succeeded with their autogen rules', async () => {
    await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'require-team', 'team'));
    const local = requireLabelPolicy('Audit', 'require-owner', 'owner');
    await cluster.custom.createNamespacedCustomObject({
      group: 'kyverno.io',
      version: 'v1',
      namespace: 'apps',
      plural: 'policies',
      body: { ...local, kind: 'Policy', metadata: { name: 'require-owner', namespace: 'apps' } },
    });

    await eventually(() => ready(clusterPolicyNamed('require-team'))?.status === 'True', 'ClusterPolicy Ready', 15_000);
    await eventually(() => ready(policyNamed('apps', 'require-owner'))?.status === 'True', 'Policy Ready', 15_000);

    for (const view of [clusterPolicyNamed('require-team')!, policyNamed('apps', 'require-owner')!]) {
      expect(ready(view)).toMatchObject({ type: 'Ready', status: 'True', reason: 'Succeeded', message: 'Ready' });
      expect(ready(view)!.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(view.status!.rulecount).toEqual({ validate: 1, generate: 0, mutate: 0, verifyimages: 0 });
      expect(view.status!.validatingadmissionpolicy?.generated).toBe(false);
      const rules = view.status!.autogen?.rules ?? [];
      expect(rules.map((r) => r.name)).toEqual([expect.stringMatching(/^autogen-check-/), expect.any(String)]);
      expect(rules[0]!.match.any[0]!.resources.kinds).toEqual(CONTROLLER_KINDS);
      expect(rules[1]!.name).toMatch(/^autogen-cronjob-check-/);
      expect(rules[1]!.match.any[0]!.resources.kinds).toEqual(['batch/v1/CronJob']);
    }
    // v2beta1 is another view of the same object.
    expect(ready(clusterPolicyNamed('require-team', 'v2beta1'))).toMatchObject({ reason: 'Succeeded' });
    // The admission policy generator says why no VAP was generated (Kyverno's message); a Policy is never a candidate.
    await eventually(
      () =>
        clusterPolicyNamed('require-team')?.status?.validatingadmissionpolicy?.message ===
        'skip generating ValidatingAdmissionPolicy for non CEL rules.',
      'ClusterPolicy VAP generation message',
      15_000,
    );
    expect(policyNamed('apps', 'require-owner')!.status!.validatingadmissionpolicy).toEqual({
      generated: false,
      message: '',
    });
  }, 30_000);

  it('writes nothing more once the status is right, however often the webhooks are reconciled', async () => {
    const writer = replica.app.get(PolicyStatusWriter);
    // Let the first test's writes come back through the cache (a lagging cache costs a conflict, not a write).
    await new Promise((resolve) => setTimeout(resolve, 500));
    await writer.sync();
    const before = [clusterPolicyNamed('require-team')!, policyNamed('apps', 'require-owner')!].map(
      (v) => v.metadata.resourceVersion,
    );
    expect(await replica.app.get(WebhookMonitor).check()).toMatchObject({ status: 'ok' });
    expect(await writer.sync()).toMatchObject({ status: 'done', written: [] });
    const after = [clusterPolicyNamed('require-team')!, policyNamed('apps', 'require-owner')!].map(
      (v) => v.metadata.resourceVersion,
    );
    expect(after).toEqual(before);
  }, 30_000);

  it('follows a policy update: new rule counts and autogen rules, Ready throughout', async () => {
    const current = clusterPolicyNamed('require-team')!;
    const policy = requireLabelPolicy('Enforce', 'require-team', 'team');
    const rules = policy.spec.rules as Array<Record<string, unknown>>;
    const second = {
      ...rules[0]!,
      name: 'check-tier',
      validate: { message: 'tier', pattern: { metadata: { labels: { tier: '?*' } } } },
    };
    const flips: string[] = [];
    const watching = setInterval(() => flips.push(String(ready(clusterPolicyNamed('require-team'))?.status)), 5);
    try {
      await cluster.custom.replaceClusterCustomObject({
        group: 'kyverno.io',
        version: 'v1',
        plural: 'clusterpolicies',
        name: 'require-team',
        body: {
          ...policy,
          metadata: { name: 'require-team', resourceVersion: current.metadata.resourceVersion },
          spec: { ...policy.spec, rules: [...rules, second] },
        },
      });
      await eventually(
        () => clusterPolicyNamed('require-team')?.status?.rulecount?.validate === 2,
        'two validate rules',
        15_000,
      );
      await eventually(
        () => (clusterPolicyNamed('require-team')?.status?.autogen?.rules ?? []).length === 4,
        'four autogen rules',
        15_000,
      );
      await replica.app.get(PolicyStatusWriter).sync();
    } finally {
      clearInterval(watching);
    }
    expect(clusterPolicyNamed('require-team')!.metadata.generation).toBe(2);
    expect(ready(clusterPolicyNamed('require-team'))).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(new Set(flips)).toEqual(new Set(['True']));
  }, 30_000);
});
