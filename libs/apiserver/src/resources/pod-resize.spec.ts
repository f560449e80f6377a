import type { JsonObject } from '@edict/foundation';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../testing/http';
import { podQosClass } from './pod-resize';

let running: Running | undefined;
afterEach(async () => {
  await running?.server.stop();
  running = undefined;
});

const POD_PATH = '/api/v1/namespaces/default/pods/web';

function pod(containers: JsonObject[], extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: { containers, ...extra },
  };
}

const app = (resources: JsonObject, more: JsonObject = {}): JsonObject => ({
  name: 'app',
  image: 'nginx',
  resources,
  ...more,
});

async function withPod(created: JsonObject): Promise<Running> {
  running = await startServer();
  running.server.create(created);
  return running;
}

describe('pods/resize', () => {
  it('keeps only the containers resources: labels, images and other spec fields sent along are dropped', async () => {
    const server = await withPod(pod([app({ requests: { cpu: '100m' }, limits: { cpu: '500m' } })]));
    const current = server.server.get('v1', 'Pod', 'web', 'default')!;
    const sent = structuredClone(current) as JsonObject & { spec: { containers: JsonObject[] }; metadata: JsonObject };
    sent.spec.containers[0]!.resources = { requests: { cpu: '200m' }, limits: { cpu: '500m' } };
    sent.spec.containers[0]!.image = 'nginx:2';
    sent.metadata.labels = { app: 'other' };
    const answer = await server.request('PUT', `${POD_PATH}/resize`, sent);
    // The image change is dropped before validation, as kube's resize strategy does.
    expect(answer.status).toBe(200);
    const stored = server.server.get('v1', 'Pod', 'web', 'default') as JsonObject & {
      spec: { containers: JsonObject[] };
      metadata: JsonObject;
    };
    expect(stored.spec.containers[0]).toMatchObject({ image: 'nginx', resources: { requests: { cpu: '200m' } } });
    expect(stored.metadata.labels).toEqual({ app: 'web' });
  });

  it('is served as a JSON patch too, and GET answers the Pod', async () => {
    const server = await withPod(pod([app({ requests: { cpu: '100m' } })]));
    const patched = await server.request(
      'PATCH',
      `${POD_PATH}/resize`,
      JSON.stringify([{ op: 'replace', path: '/spec/containers/0/resources/requests/cpu', value: '300m' }]),
      'application/json-patch+json',
    );
    expect(patched.status).toBe(200);
    const got = await server.request('GET', `${POD_PATH}/resize`);
    expect(got.body).toMatchObject({
      kind: 'Pod',
      spec: { containers: [{ resources: { requests: { cpu: '300m' } } }] },
    });
  });

  it('refuses resources other than cpu and memory', async () => {
    const server = await withPod(pod([app({ requests: { cpu: '100m', 'ephemeral-storage': '1Gi' } })]));
    const answer = await server.request(
      'PATCH',
      `${POD_PATH}/resize`,
      JSON.stringify([
        { op: 'replace', path: '/spec/containers/0/resources/requests/ephemeral-storage', value: '2Gi' },
      ]),
      'application/json-patch+json',
    );
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe(
      'Pod "web" is invalid: spec: Forbidden: only cpu and memory resources are mutable',
    );
  });

  it('refuses removing a request and changing the QoS class', async () => {
    const server = await withPod(pod([app({ requests: { cpu: '100m', memory: '16Mi' } })]));
    const removed = await server.request(
      'PATCH',
      `${POD_PATH}/resize`,
      JSON.stringify([{ op: 'remove', path: '/spec/containers/0/resources/requests/memory' }]),
      'application/json-patch+json',
    );
    expect(removed.status).toBe(422);
    expect(removed.body.message).toContain(
      'spec.containers[0].resources.requests[memory]: Forbidden: resource removal is not supported',
    );
    const guaranteed = await server.request(
      'PATCH',
      `${POD_PATH}/resize`,
      JSON.stringify({
        spec: { containers: [{ name: 'app', resources: { limits: { cpu: '100m', memory: '16Mi' } } }] },
      }),
      'application/strategic-merge-patch+json',
    );
    expect(guaranteed.status).toBe(422);
    expect(guaranteed.body.message).toContain('Pod QOS Class may not change as a result of resizing');
  });

  it('refuses adding a container, and resizing a static Pod', async () => {
    const server = await withPod(pod([app({ requests: { cpu: '100m' } })], {}));
    const current = server.server.get('v1', 'Pod', 'web', 'default') as JsonObject & {
      spec: { containers: JsonObject[] };
    };
    const added = await server.request('PUT', `${POD_PATH}/resize`, {
      ...current,
      spec: { ...current.spec, containers: [...current.spec.containers, { name: 'extra', image: 'busybox' }] },
    });
    expect(added.status).toBe(422);
    expect(added.body.message).toContain(
      'spec.containers: Forbidden: containers may not be added or removed on resize',
    );

    await running!.server.stop();
    const mirror = pod([app({ requests: { cpu: '100m' } })]);
    (mirror.metadata as JsonObject).annotations = { 'kubernetes.io/config.mirror': 'abc' };
    const staticServer = await withPod(mirror);
    const answer = await staticServer.request(
      'PATCH',
      `${POD_PATH}/resize`,
      JSON.stringify([{ op: 'replace', path: '/spec/containers/0/resources/requests/cpu', value: '300m' }]),
      'application/json-patch+json',
    );
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('static pods cannot be resized');
  });

  it('is a subresource of pods only', async () => {
    running = await startServer();
    running.server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'default' } });
    const answer = await running.request('GET', '/api/v1/namespaces/default/configmaps/web/resize');
    expect(answer.status).toBe(404);
  });
});

describe('podQosClass', () => {
  it('classifies as Kubernetes does (requests default to limits)', () => {
    expect(podQosClass({ containers: [{ name: 'a' }] })).toBe('BestEffort');
    expect(podQosClass({ containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' } } }] })).toBe(
      'Guaranteed',
    );
    expect(
      podQosClass({
        containers: [
          { name: 'a', resources: { requests: { cpu: '1000m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } },
        ],
      }),
    ).toBe('Guaranteed');
    expect(podQosClass({ containers: [{ name: 'a', resources: { requests: { cpu: '100m' } } }] })).toBe('Burstable');
    expect(
      podQosClass({
        containers: [
          { name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' } } },
          { name: 'b', resources: { requests: { cpu: '1' } } },
        ],
      }),
    ).toBe('Burstable');
  });
});
