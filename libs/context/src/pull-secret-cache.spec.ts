import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '@edict/apiserver';
import type { JsonObject } from '@edict/foundation';
import { InformerFactory, KubeHttpClient, KubeResources } from '@edict/kube';
import { eventually, kubeConfigForUrl } from '@edict/kube/testing';
import { PullSecretCache } from './pull-secret-cache';

function dockerSecret(name: string, password: string): JsonObject {
  const auths = { 'registry.example': { auth: Buffer.from(`bob:${password}`).toString('base64') } };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'edict' },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths })).toString('base64') },
  };
}

describe('PullSecretCache against the in-memory API server', () => {
  const server = new InMemoryApiServer({ bookmarkIntervalMs: 50, admission: false });
  let factory: InformerFactory;
  let secrets: PullSecretCache;

  beforeAll(async () => {
    const { url } = await server.start({ host: '127.0.0.1', port: 0 });
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'edict' } });
    server.create(dockerSecret('regcred', 'one'));
    factory = new InformerFactory(new KubeResources(new KubeHttpClient(kubeConfigForUrl(url))));
    secrets = new PullSecretCache({ namespace: 'edict', watchTimeoutSeconds: 30 }, factory);
    secrets.start();
    await eventually(() => secrets.hasSynced(), 'the Secret cache to sync');
  });
  afterAll(async () => {
    await factory.onModuleDestroy();
    await server.stop();
  });

  it('reads docker configs from memory and changes its revision with every Secret change', async () => {
    expect(secrets.dockerConfigs(['regcred'])).toHaveLength(1);
    expect(() => secrets.dockerConfigs(['missing'])).toThrow('registry Secret edict/missing not found');
    const first = secrets.revision();
    // A read changes nothing.
    secrets.dockerConfigs(['regcred']);
    expect(secrets.revision()).toBe(first);

    server.create(dockerSecret('missing', 'two'));
    await eventually(() => secrets.revision() > first, 'a revision after the add');
    expect(secrets.dockerConfigs(['missing'])).toHaveLength(1);

    const added = secrets.revision();
    server.update(dockerSecret('regcred', 'three'));
    await eventually(() => secrets.revision() > added, 'a revision after the update');

    const updated = secrets.revision();
    server.delete('v1', 'Secret', 'missing', 'edict');
    await eventually(() => secrets.revision() > updated, 'a revision after the delete');
    expect(() => secrets.dockerConfigs(['missing'])).toThrow('registry Secret edict/missing not found');
  });
});
