// kube's ServiceAccount admission plugin and service account controller, against the running server.
import type { JsonObject } from '@edict/foundation';
import { afterEach, describe, expect, it } from 'vitest';
import { dig } from '@edict/apiserver/testing';
import { startCluster, type RunningCluster } from '../testing';

/** Where kube mounts the service account token. */
const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

let running: RunningCluster | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const PODS = '/api/v1/namespaces/team/pods';

function pod(name: string, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      containers: [{ name: 'app', image: 'nginx' }],
      initContainers: [{ name: 'init', image: 'busybox' }],
      ...spec,
    },
  };
}

async function cluster(): Promise<RunningCluster> {
  running = await startCluster({ controllers: true, serviceAccountAdmission: true });
  await running.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'team' },
  });
  await running.controllerManager.controllers!.settled();
  return running;
}

describe('ServiceAccount admission', () => {
  it('runs a Pod as the default account (which the controller created) and mounts its token in every container', async () => {
    const { request } = await cluster();
    expect((await request('GET', '/api/v1/namespaces/team/serviceaccounts/default')).status).toBe(200);
    const created = await request('POST', PODS, pod('web', { volumes: [{ name: 'data', emptyDir: {} }] }));
    expect(created.status).toBe(201);
    expect(dig(created.body, 'spec.serviceAccountName')).toBe('default');
    const volumes = dig<JsonObject[]>(created.body, 'spec.volumes');
    expect(volumes).toHaveLength(2);
    const token = volumes[1]!;
    expect(token.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(token.projected).toEqual({
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        {
          downwardAPI: {
            items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
          },
        },
      ],
    });
    const mount = { name: token.name, readOnly: true, mountPath: TOKEN_MOUNT_PATH };
    expect(dig(created.body, 'spec.containers.0.volumeMounts')).toEqual([mount]);
    expect(dig(created.body, 'spec.initContainers.0.volumeMounts')).toEqual([mount]);
  });

  it('mounts nothing when the Pod or its account opts out, or a container already mounts the token path', async () => {
    const { request } = await cluster();
    await request('POST', '/api/v1/namespaces/team/serviceaccounts', {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'quiet' },
      automountServiceAccountToken: false,
      imagePullSecrets: [{ name: 'registry' }],
    });
    const quiet = await request('POST', PODS, pod('quiet', { serviceAccountName: 'quiet' }));
    expect(dig(quiet.body, 'spec.volumes')).toBeUndefined();
    expect(dig(quiet.body, 'spec.imagePullSecrets')).toEqual([{ name: 'registry' }]);
    // The Pod's own setting wins over its account's.
    const loud = await request(
      'POST',
      PODS,
      pod('loud', { serviceAccountName: 'quiet', automountServiceAccountToken: true }),
    );
    expect(dig<JsonObject[]>(loud.body, 'spec.volumes')).toHaveLength(1);
    const optedOut = await request('POST', PODS, pod('opted-out', { automountServiceAccountToken: false }));
    expect(dig(optedOut.body, 'spec.volumes')).toBeUndefined();
    const own = { name: 'mine', mountPath: TOKEN_MOUNT_PATH };
    const mounted = await request(
      'POST',
      PODS,
      pod('mounted', { initContainers: [], containers: [{ name: 'app', image: 'nginx', volumeMounts: [own] }] }),
    );
    expect(dig(mounted.body, 'spec.volumes')).toBeUndefined();
    expect(dig(mounted.body, 'spec.containers.0.volumeMounts')).toEqual([own]);
  });

  it('refuses a Pod whose account does not exist, as kube does', async () => {
    const { request } = await cluster();
    const refused = await request('POST', PODS, pod('ghost', { serviceAccountName: 'ghost' }));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      reason: 'Forbidden',
      message:
        'pods "ghost" is forbidden: error looking up service account team/ghost: serviceaccount "ghost" not found',
    });
  });

  it('recreates a deleted default account, and is off unless asked for', async () => {
    const { request } = await cluster();
    await request('DELETE', '/api/v1/namespaces/team/serviceaccounts/default');
    await running!.controllerManager.controllers!.settled();
    expect((await request('GET', '/api/v1/namespaces/team/serviceaccounts/default')).status).toBe(200);
    await running!.stop();
    running = await startCluster();
    const plain = await running.request('POST', '/api/v1/namespaces/default/pods', pod('plain'));
    expect(plain.status).toBe(201);
    expect(dig(plain.body, 'spec.serviceAccountName')).toBeUndefined();
  });
});
