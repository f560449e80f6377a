/**
 * End to end through the in-memory API server: a MutatingPolicy with evaluation.mutateExisting
 * patches the existing objects it matches when it is created (the background controller's own
 * cel-mutate UpdateRequest), and a cel-mutate UpdateRequest the admission controller writes for a
 * trigger patches the targets of targetMatchConstraints; processed requests are deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { LeaderService } from '@edict/leader';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestBackground } from '@edict/background-controller/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const addLabel = (label: string) => [
  {
    patchType: 'ApplyConfiguration',
    applyConfiguration: { expression: `Object{metadata: Object.metadata{labels: {"${label}": "yes"}}}` },
  },
];

describe('MutatingPolicy mutateExisting in the background controller', () => {
  let cluster: E2eCluster;
  let background: RunningHttpController;
  const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
    cluster.apiServer.get(apiVersion, kind, name, namespace) as Obj | undefined;
  const create = (object: Obj) => cluster.apiServer.create(object as JsonObject);
  const updateRequests = () => cluster.apiServer.list('kyverno.io/v2', 'UpdateRequest', cluster.names.namespace);

  beforeAll(async () => {
    cluster = await startE2eCluster();
    background = await startTestBackground(cluster, { leaseIdentity: 'background-a', omitEvents: [] });
    await eventually(() => background.app.get(LeaderService).isLeader(), 'the background leader');
    for (const name of ['team-a', 'team-b']) create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }, 60_000);

  afterAll(async () => {
    await background?.stop().catch(() => undefined);
    await cluster?.stop();
  });

  it('patches the existing objects a new policy matches and its match conditions admit', async () => {
    for (const namespace of ['team-a', 'team-b']) {
      create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { a: 'b' } });
    }
    create({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'MutatingPolicy',
      metadata: { name: 'label-settings' },
      spec: {
        evaluation: { admission: { enabled: false }, mutateExisting: { enabled: true } },
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['configmaps'],
              resourceNames: ['settings'],
            },
          ],
        },
        matchConditions: [{ name: 'team-a', expression: 'object.metadata.namespace == "team-a"' }],
        mutations: addLabel('existing'),
      },
    });
    await eventually(
      () => get('v1', 'ConfigMap', 'settings', 'team-a')?.metadata?.labels?.existing === 'yes',
      'the existing ConfigMap patched',
      20_000,
    );
    expect(get('v1', 'ConfigMap', 'settings', 'team-b')?.metadata?.labels).toBeUndefined();
    await eventually(() => updateRequests().length === 0, 'the request processed and deleted', 20_000);
  }, 50_000);

  it("patches a trigger's targets from the cel-mutate request written for it", async () => {
    create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', namespace: 'team-b' }, data: {} });
    const secret = create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'trigger', namespace: 'team-b' },
    }) as unknown as Obj;
    create({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'NamespacedMutatingPolicy',
      metadata: { name: 'secret-to-configmap', namespace: 'team-b' },
      spec: {
        evaluation: { mutateExisting: { enabled: true } },
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['secrets'] }],
        },
        targetMatchConstraints: {
          resourceRules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['UPDATE'],
              resources: ['configmaps'],
              resourceNames: ['target'],
            },
          ],
        },
        mutations: addLabel('by-trigger'),
      },
    });
    // What the admission controller writes for an update of the Secret (mutateExistingRequests).
    create({
      apiVersion: 'kyverno.io/v2',
      kind: 'UpdateRequest',
      metadata: { name: 'ur-secret-update', namespace: cluster.names.namespace },
      spec: {
        requestType: 'cel-mutate',
        policy: 'team-b/secret-to-configmap',
        rule: '',
        deleteDownstream: false,
        resource: { apiVersion: 'v1', kind: 'Secret', namespace: 'team-b', name: 'trigger' },
        context: {
          userInfo: { userInfo: { username: 'alice' } },
          admissionRequestInfo: {
            operation: 'UPDATE',
            admissionRequest: {
              uid: 'review',
              kind: { group: '', version: 'v1', kind: 'Secret' },
              resource: { group: '', version: 'v1', resource: 'secrets' },
              namespace: 'team-b',
              name: 'trigger',
              operation: 'UPDATE',
              userInfo: { username: 'alice' },
              object: secret,
              oldObject: secret,
            },
          },
        },
      },
    });
    await eventually(
      () => get('v1', 'ConfigMap', 'target', 'team-b')?.metadata?.labels?.['by-trigger'] === 'yes',
      'the target patched',
      40_000,
    );
    await eventually(() => updateRequests().length === 0, 'the request processed and deleted', 20_000);
  }, 70_000);
});
