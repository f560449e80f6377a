/**
 * End to end through the in-memory API server: what a policy's own lifecycle sets off in the
 * background controller. generateExisting generates for a Namespace that existed before the
 * policy; mutateExistingOnPolicyUpdate patches an existing object when the policy is updated;
 * deleting a policy whose data rule synchronizes deletes what it generated, unless the rule orphans
 * its downstream objects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { LeaderService } from '@edict/leader';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestBackground } from '@edict/background-controller/testing';
import { clusterPolicy, waitForWebhook } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('policy lifecycle in the background controller', () => {
  let cluster: E2eCluster;
  let background: RunningHttpController;
  const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
    cluster.apiServer.get(apiVersion, kind, name, namespace) as Obj | undefined;
  const create = (object: Obj) => cluster.apiServer.create(object as JsonObject);

  /** A ConfigMap per Namespace named `name` in `namespaceNames`, from a synchronized data rule. */
  const syncPolicy = (name: string, namespaceNames: string[], orphan: boolean) =>
    clusterPolicy(name, {
      rules: [
        {
          name: 'settings',
          match: { any: [{ resources: { kinds: ['Namespace'], names: namespaceNames } }] },
          generate: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: name,
            namespace: '{{request.object.metadata.name}}',
            synchronize: true,
            ...(orphan ? { orphanDownstreamOnPolicyDelete: true } : {}),
            data: { data: { owner: name } },
          },
        },
      ],
    });

  beforeAll(async () => {
    cluster = await startE2eCluster();
    await cluster.startReplica({ omitEvents: [] });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    background = await startTestBackground(cluster);
    await eventually(() => background.app.get(LeaderService).isLeader(), 'the background leader');
  }, 60_000);

  afterAll(async () => {
    await background?.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it('generates for a Namespace that existed before a generateExisting policy', async () => {
    create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'legacy' } });
    await cluster.createClusterPolicy(
      clusterPolicy('deny-existing', {
        rules: [
          {
            name: 'deny-all',
            match: { any: [{ resources: { kinds: ['Namespace'], names: ['legacy'] } }] },
            generate: {
              generateExisting: true,
              apiVersion: 'networking.k8s.io/v1',
              kind: 'NetworkPolicy',
              name: 'default-deny',
              namespace: '{{request.object.metadata.name}}',
              data: { spec: { podSelector: {}, policyTypes: ['Ingress'] } },
            },
          },
        ],
      }),
    );
    await eventually(
      () => get('networking.k8s.io/v1', 'NetworkPolicy', 'default-deny', 'legacy') !== undefined,
      'the NetworkPolicy in the existing Namespace',
      15_000,
    );
    expect(get('networking.k8s.io/v1', 'NetworkPolicy', 'default-deny', 'legacy')!.metadata.labels).toMatchObject({
      'generate.kyverno.io/policy-name': 'deny-existing',
      'generate.kyverno.io/trigger-uid': get('v1', 'Namespace', 'legacy')!.metadata.uid,
    });
  }, 30_000);

  it('patches an existing object when the policy is updated to mutate existing resources on update', async () => {
    create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'store' } });
    create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'config', namespace: 'store' }, data: { a: '1' } });
    const policy = (onPolicyUpdate: boolean) =>
      clusterPolicy('stamp-store', {
        mutateExistingOnPolicyUpdate: onPolicyUpdate,
        rules: [
          {
            name: 'stamp',
            match: { any: [{ resources: { kinds: ['ConfigMap'], namespaces: ['store'], names: ['config'] } }] },
            mutate: {
              targets: [
                {
                  apiVersion: 'v1',
                  kind: 'ConfigMap',
                  name: '{{request.object.metadata.name}}',
                  namespace: '{{request.object.metadata.namespace}}',
                },
              ],
              patchStrategicMerge: { metadata: { labels: { stamped: 'yes' } } },
            },
          },
        ],
      });
    await cluster.createClusterPolicy(policy(false));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(get('v1', 'ConfigMap', 'config', 'store')!.metadata.labels?.stamped).toBeUndefined();
    const current = get('kyverno.io/v1', 'ClusterPolicy', 'stamp-store')!;
    await cluster.custom.replaceClusterCustomObject({
      group: 'kyverno.io',
      version: 'v1',
      plural: 'clusterpolicies',
      name: 'stamp-store',
      body: { ...policy(true), metadata: { name: 'stamp-store', resourceVersion: current.metadata.resourceVersion } },
    });
    await eventually(
      () => get('v1', 'ConfigMap', 'config', 'store')!.metadata.labels?.stamped === 'yes',
      'the ConfigMap patched after the policy update',
      15_000,
    );
  }, 30_000);

  it('deletes what a synchronized data rule generated when its policy is deleted, unless it orphans it', async () => {
    await cluster.createClusterPolicy(syncPolicy('synced', ['north'], false));
    await cluster.createClusterPolicy(syncPolicy('orphaned', ['north'], true));
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'namespaces');
    await cluster.core.createNamespace({ body: { metadata: { name: 'north' } } });
    await eventually(
      () =>
        get('v1', 'ConfigMap', 'synced', 'north') !== undefined &&
        get('v1', 'ConfigMap', 'orphaned', 'north') !== undefined,
      'both ConfigMaps generated',
      15_000,
    );
    await cluster.deleteClusterPolicy('synced');
    await cluster.deleteClusterPolicy('orphaned');
    await eventually(
      () => get('v1', 'ConfigMap', 'synced', 'north') === undefined,
      'the synchronized ConfigMap deleted',
      15_000,
    );
    // The orphaned one stays, labels and all.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(get('v1', 'ConfigMap', 'orphaned', 'north')).toMatchObject({
      data: { owner: 'orphaned' },
      metadata: { labels: { 'generate.kyverno.io/policy-name': 'orphaned' } },
    });
  }, 40_000);
});
