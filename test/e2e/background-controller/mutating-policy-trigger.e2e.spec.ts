/**
 * End to end through admission and the background controller: a MutatingPolicy with
 * evaluation.mutateExisting whose targets are other objects (targetMatchConstraints) patches them
 * when an admitted request of its trigger fires it (the admission controller writes the cel-mutate
 * UpdateRequest, the background controller processes it), and leaves the trigger as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreV1Api } from '@kubernetes/client-node';
import type { JsonObject } from '@edict/foundation';
import { LeaderService } from '@edict/leader';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import { waitForWebhook } from '@edict/controller-runtime/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestBackground } from '@edict/background-controller/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NAMESPACE = 'trigger-team';

describe('MutatingPolicy mutateExisting fired by an admitted trigger', () => {
  let cluster: E2eCluster;
  let background: RunningHttpController;
  let core: CoreV1Api;
  const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
    cluster.apiServer.get(apiVersion, kind, name, namespace) as Obj | undefined;

  beforeAll(async () => {
    cluster = await startE2eCluster();
    await cluster.startReplica({ omitEvents: [] });
    background = await startTestBackground(cluster, { leaseIdentity: 'background-a', omitEvents: [] });
    await eventually(() => background.app.get(LeaderService).isLeader(), 'the background leader');
    core = cluster.core;
    await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  }, 60_000);

  afterAll(async () => {
    await background?.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it('patches the target Secret when the trigger ConfigMap is updated, and leaves the trigger unchanged', async () => {
    await core.createNamespacedSecret({
      namespace: NAMESPACE,
      body: { metadata: { name: 'target-secret' }, type: 'Opaque', data: { key: 'dmFsdWU=' } },
    });
    cluster.apiServer.create({
      apiVersion: 'policies.kyverno.io/v1alpha1',
      kind: 'MutatingPolicy',
      metadata: { name: 'mutate-existing-trigger', namespace: NAMESPACE },
      spec: {
        failurePolicy: 'Ignore',
        evaluation: { mutateExisting: { enabled: true } },
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['configmaps'],
              resourceNames: ['trigger-cm'],
            },
          ],
        },
        targetMatchConstraints: {
          resourceRules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['secrets'],
              resourceNames: ['target-secret'],
            },
          ],
        },
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"mutated": "true"}}}' },
          },
        ],
      },
    } as JsonObject);
    await waitForWebhook(
      cluster.apiServer,
      'MutatingWebhookConfiguration',
      'mpol.validate.edict.svc-ignore',
      'configmaps',
      15_000,
    );
    await core.createNamespacedConfigMap({
      namespace: NAMESPACE,
      body: { metadata: { name: 'trigger-cm' }, data: { foo: 'bar' } },
    });
    await core.replaceNamespacedConfigMap({
      name: 'trigger-cm',
      namespace: NAMESPACE,
      body: { metadata: { name: 'trigger-cm' }, data: { foo: 'bar', trigger: 'update' } },
    });
    await eventually(
      () => get('v1', 'Secret', 'target-secret', NAMESPACE)?.metadata?.labels?.mutated === 'true',
      'the target Secret patched',
      30_000,
    );
    const trigger = get('v1', 'ConfigMap', 'trigger-cm', NAMESPACE);
    expect(trigger?.data).toEqual({ foo: 'bar', trigger: 'update' });
    expect(trigger?.metadata?.labels).toBeUndefined();
  }, 90_000);
});
