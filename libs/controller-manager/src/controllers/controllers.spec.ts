// The Deployment and ReplicaSet controllers against the running server, as a cluster without nodes.
import type { JsonObject } from '@edict/foundation';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dig, createTestCa, startWebhookServer, type TestCa, type TestWebhookServer } from '@edict/apiserver/testing';
import { startCluster, type RunningCluster } from '../testing';

let running: RunningCluster | undefined;
let hook: TestWebhookServer | undefined;
let ca: TestCa;

beforeAll(async () => {
  ca = await createTestCa();
});

afterEach(async () => {
  await running?.stop();
  await hook?.close();
  running = undefined;
  hook = undefined;
});

const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';

function deployment(name: string, replicas: number, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      ...spec,
    },
  };
}

async function cluster(): Promise<RunningCluster> {
  running = await startCluster({ controllers: true });
  return running;
}

async function settled(): Promise<void> {
  await running!.controllerManager.controllers!.settled();
  await running!.controllerManager.gc!.settled();
  await running!.controllerManager.controllers!.settled();
}

const list = (kind: string) => running!.server.list(kind === 'Pod' ? 'v1' : 'apps/v1', kind, 'default');
const get = (name: string) => running!.server.get('apps/v1', 'Deployment', name, 'default')!;
const sizes = () =>
  Object.fromEntries(
    list('ReplicaSet').map((rs) => [dig<string>(rs, 'metadata.name'), dig<number>(rs, 'spec.replicas')]),
  );

/** What a kubelet would report: every Pod Running and Ready (the cluster has no nodes to do it). */
async function makePodsReady(): Promise<void> {
  for (const pod of list('Pod')) {
    if (dig(pod, 'status.phase') === 'Running') continue;
    const status = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' }],
    };
    const path = `/api/v1/namespaces/default/pods/${dig<string>(pod, 'metadata.name')}/status`;
    await running!.request('PATCH', path, { status }, 'application/merge-patch+json');
  }
  await settled();
}

describe('Deployment and ReplicaSet controllers', () => {
  it('are off unless asked for', async () => {
    running = await startCluster();
    running.server.create(deployment('web', 2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running.server.list('apps/v1', 'ReplicaSet', 'default')).toEqual([]);
    expect(running.controllerManager.controllers).toBeUndefined();
  });

  it('roll a Deployment out to a hashed ReplicaSet and Pending Pods, with the status kube reports without nodes', async () => {
    const { request } = await cluster();
    expect((await request('POST', DEPLOYMENTS, deployment('web', 2))).status).toBe(201);
    await settled();

    const [replicaSet] = list('ReplicaSet');
    const hash = dig<string>(replicaSet, 'metadata.labels.pod-template-hash');
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(replicaSet).toMatchObject({
      metadata: {
        name: `web-${hash}`,
        labels: { app: 'web', 'pod-template-hash': hash },
        annotations: {
          'deployment.kubernetes.io/revision': '1',
          'deployment.kubernetes.io/desired-replicas': '2',
          'deployment.kubernetes.io/max-replicas': '3',
        },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', controller: true, blockOwnerDeletion: true },
        ],
      },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } } },
      status: { replicas: 2, fullyLabeledReplicas: 2, observedGeneration: 1 },
    });

    const pods = list('Pod');
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(dig<string>(pod, 'metadata.name')).toMatch(new RegExp(`^web-${hash}-[a-z0-9]{5}$`));
      expect(dig(pod, 'metadata.labels')).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(dig(pod, 'metadata.ownerReferences')).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `web-${hash}`,
          uid: dig(replicaSet, 'metadata.uid'),
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(dig(pod, 'status.phase')).toBe('Pending');
    }

    const web = get('web');
    expect(dig(web, 'metadata.annotations')).toEqual({ 'deployment.kubernetes.io/revision': '1' });
    const { conditions, ...counts } = web.status as JsonObject;
    expect(counts).toEqual({ observedGeneration: 1, replicas: 2, updatedReplicas: 2, unavailableReplicas: 2 });
    expect(conditions).toEqual([
      expect.objectContaining({ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' }),
      expect.objectContaining({
        type: 'Progressing',
        status: 'True',
        reason: 'ReplicaSetUpdated',
        message: `ReplicaSet "web-${hash}" is progressing.`,
      }),
    ]);
    const events = running!.server
      .list('v1', 'Event', 'default')
      .map((e) => `${String(e.reason)}: ${String(e.message)}`);
    expect(events).toContain(`ScalingReplicaSet: Scaled up replica set web-${hash} from 0 to 2`);
    expect(events.filter((e) => e.startsWith('SuccessfulCreate: Created pod: '))).toHaveLength(2);
  });

  it('follow the scale subresource down and up, deleting and creating Pods', async () => {
    const { request } = await cluster();
    await request('POST', DEPLOYMENTS, deployment('web', 3));
    await settled();
    const scale = (replicas: number) =>
      request('PATCH', `${DEPLOYMENTS}/web/scale`, { spec: { replicas } }, 'application/merge-patch+json');

    expect((await scale(1)).status).toBe(200);
    await settled();
    expect(list('Pod')).toHaveLength(1);
    expect(get('web').status).toMatchObject({ replicas: 1, updatedReplicas: 1, observedGeneration: 2 });
    expect(Object.values(sizes())).toEqual([1]);

    await scale(0);
    await settled();
    expect(list('Pod')).toHaveLength(0);
    expect(get('web').status).not.toHaveProperty('replicas');

    await scale(4);
    await settled();
    expect(list('Pod')).toHaveLength(4);
    expect(dig(get('web'), 'status.replicas')).toBe(4);
  });

  it('roll a new template out within the surge budget, finishing only as new Pods become available', async () => {
    const { server } = await cluster();
    server.create(deployment('web', 2));
    await settled();
    await makePodsReady();
    expect(get('web').status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 2 });
    const [first] = Object.keys(sizes());

    const current = get('web');
    const template = dig<JsonObject>(current, 'spec.template');
    server.update({
      ...current,
      spec: {
        ...(current.spec as JsonObject),
        template: { ...template, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } },
      },
    });
    await settled();
    // maxSurge 25% of 2 rounds up to 1, maxUnavailable rounds down to 0: one new Pod, no old one gone.
    const second = Object.keys(sizes()).find((name) => name !== first)!;
    expect(sizes()).toEqual({ [first!]: 2, [second]: 1 });
    expect(get('web').status).toMatchObject({ replicas: 3, updatedReplicas: 1, observedGeneration: 2 });
    expect(dig<Record<string, string>>(get('web'), 'metadata.annotations')['deployment.kubernetes.io/revision']).toBe(
      '2',
    );

    for (let round = 0; round < 6 && sizes()[first!] !== 0; round++) await makePodsReady();
    expect(sizes()).toEqual({ [first!]: 0, [second]: 2 });
    expect(list('Pod')).toHaveLength(2);
    expect(get('web').status).toMatchObject({ replicas: 2, updatedReplicas: 2, availableReplicas: 2 });
    expect(dig<JsonObject[]>(get('web'), 'status.conditions')).toContainEqual(
      expect.objectContaining({ type: 'Progressing', reason: 'NewReplicaSetAvailable' }),
    );
  });

  it('scale a stuck rollout proportionally, as kube documents (8 old + 5 new of 10, scaled to 15: 11 + 7)', async () => {
    const { server, request } = await cluster();
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } };
    server.create(deployment('web', 10, { strategy }));
    await settled();
    await makePodsReady();
    const [first] = Object.keys(sizes());
    const current = get('web');
    const template = dig<JsonObject>(current, 'spec.template');
    server.update({
      ...current,
      spec: {
        ...(current.spec as JsonObject),
        template: { ...template, spec: { containers: [{ name: 'c', image: 'no-such-image' }] } },
      },
    });
    await settled();
    const second = Object.keys(sizes()).find((name) => name !== first)!;
    expect(sizes()).toEqual({ [first!]: 8, [second]: 5 });

    await request('PATCH', `${DEPLOYMENTS}/web/scale`, { spec: { replicas: 15 } }, 'application/merge-patch+json');
    await settled();
    expect(sizes()).toEqual({ [first!]: 11, [second]: 7 });
    expect(list('Pod')).toHaveLength(18);
  });

  it('recreate: old Pods go before the new ReplicaSet is created', async () => {
    const { server } = await cluster();
    server.create(deployment('web', 2, { strategy: { type: 'Recreate' } }));
    await settled();
    const [first] = Object.keys(sizes());
    const current = get('web');
    const template = dig<JsonObject>(current, 'spec.template');
    server.update({
      ...current,
      spec: {
        ...(current.spec as JsonObject),
        template: { ...template, metadata: { labels: { app: 'web', v: '2' } } },
      },
    });
    await settled();
    const names = Object.keys(sizes());
    expect(names).toHaveLength(2);
    expect(sizes()[first!]).toBe(0);
    const pods = list('Pod');
    expect(pods).toHaveLength(2);
    expect(pods.every((pod) => dig(pod, 'metadata.labels.v') === '2')).toBe(true);
  });

  it('create Pods through admission: a denied Pod is not there and the ReplicaSet reports ReplicaFailure', async () => {
    const { server } = await cluster();
    const tls = await ca.issue({ ips: ['127.0.0.1'], dns: ['localhost'] });
    hook = await startWebhookServer(tls, (request): JsonObject => ({
      allowed: false,
      status: { code: 403, message: `no Pods for ${String((request.userInfo as JsonObject).username)}` },
    }));
    server.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'deny-pods' },
      webhooks: [
        {
          name: 'deny.edict.test',
          clientConfig: { url: hook.url, caBundle: ca.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    server.create(deployment('web', 2));
    await settled();

    expect(list('Pod')).toEqual([]);
    const message =
      'admission webhook "deny.edict.test" denied the request: no Pods for system:serviceaccount:kube-system:replicaset-controller';
    const [replicaSet] = list('ReplicaSet');
    expect(dig(replicaSet, 'status.conditions')).toEqual([
      expect.objectContaining({ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message }),
    ]);
    expect(dig(replicaSet, 'status.replicas')).toBe(0);
    const failedCreate = server.list('v1', 'Event', 'default').find((e) => e.reason === 'FailedCreate');
    expect(failedCreate).toMatchObject({ type: 'Warning', message: `Error creating: ${message}` });
    expect(dig<JsonObject[]>(get('web'), 'status.conditions')).toContainEqual(
      expect.objectContaining({ type: 'ReplicaFailure', reason: 'FailedCreate', message }),
    );
  });

  it('adopt a matching orphan Pod instead of creating one, and release a Pod whose labels stop matching', async () => {
    const { server } = await cluster();
    server.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stray', namespace: 'default', labels: { app: 'db' } },
      spec: { containers: [{ name: 'c', image: 'postgres' }] },
    });
    server.create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'db', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'postgres' }] } },
      },
    });
    await settled();
    expect(list('Pod').map((p) => dig(p, 'metadata.name'))).toEqual(['stray']);
    expect(dig(server.get('v1', 'Pod', 'stray', 'default'), 'metadata.ownerReferences.0.name')).toBe('db');

    const adopted = server.get('v1', 'Pod', 'stray', 'default')!;
    server.update({ ...adopted, metadata: { ...(adopted.metadata as JsonObject), labels: { app: 'other' } } });
    await settled();
    expect(dig(server.get('v1', 'Pod', 'stray', 'default'), 'metadata.ownerReferences')).toBeUndefined();
    expect(list('Pod')).toHaveLength(2);
  });

  it('leave the cascade to the garbage collector when the Deployment is deleted', async () => {
    const { request } = await cluster();
    await request('POST', DEPLOYMENTS, deployment('web', 2));
    await settled();
    expect((await request('DELETE', `${DEPLOYMENTS}/web`)).status).toBe(200);
    await settled();
    expect(list('ReplicaSet')).toEqual([]);
    expect(list('Pod')).toEqual([]);
  });
});
