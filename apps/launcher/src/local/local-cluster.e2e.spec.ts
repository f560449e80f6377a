/**
 * Local mode end to end: the launcher started in-process (API server and controller on free ports,
 * kubeconfig in a temp folder), used as kubectl would use it through the written kubeconfig.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';

import {
  examplesWithAnInvalidOne,
  FAST_CONTROLLER,
  httpsGet,
  listening,
  occupyPort,
  REPO_EXAMPLES,
  tempDir,
} from '../testing/launcher-fixtures';
import { startLocalCluster, type LocalCluster } from './local-cluster';
import { apiErrorMessage, testPod } from '@edict/controller-runtime/testing';

describe('local mode (npm start without a cluster)', () => {
  let local: LocalCluster;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;
  const dir = tempDir('launcher');

  beforeAll(async () => {
    local = await startLocalCluster({
      apiPort: 0,
      kubeconfigPath: join(dir, '.edict', 'kubeconfig'),
      examplesDir: examplesWithAnInvalidOne(),
      env: {},
      controller: FAST_CONTROLLER,
      logger: false,
      readyTimeoutMs: 15_000,
    });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(local.kubeconfigPath);
    core = kubeConfig.makeApiClient(CoreV1Api);
    custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }, 60_000); // every controller, two serving certificates and their webhooks: slow on a loaded machine

  afterAll(async () => {
    await local?.stop();
  });

  it('writes the kubeconfig for the API server and the CA beside it', () => {
    expect(local.kubeconfigPath).toBe(join(dir, '.edict', 'kubeconfig'));
    expect(readFileSync(local.kubeconfigPath, 'utf8')).toContain(`server: ${local.apiUrl}`);
    expect(readFileSync(local.caPath, 'utf8')).toContain('BEGIN CERTIFICATE');
    // HTTPS with the cluster CA, the admin authenticated by its client certificate.
    expect(local.apiUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(readFileSync(local.kubeconfigPath, 'utf8')).toMatch(
      /certificate-authority-data:[\s\S]*client-certificate-data:/,
    );
  });

  it('installs the CRDs and the controller namespace', async () => {
    const crd = local.apiServer.get(
      'apiextensions.k8s.io/v1',
      'CustomResourceDefinition',
      'clusterpolicies.kyverno.io',
    );
    expect(crd).toBeDefined();
    const namespace = await core.readNamespace({ name: 'edict' });
    expect(namespace.metadata?.name).toBe('edict');
  });

  it('installs the example policies, and the policy validation webhook refuses the invalid one', async () => {
    const list = (await custom.listClusterCustomObject({
      group: 'kyverno.io',
      version: 'v1',
      plural: 'clusterpolicies',
    })) as { items: Array<{ metadata: { name: string } }> };
    const names = list.items.map((item) => item.metadata.name).sort();
    expect(names).toEqual(['no-privileged-pods', 'require-team-label']);
    expect(local.installed.map((policy) => policy.source).sort()).toEqual([
      join('examples', 'no-privileged-pods', 'policy.yaml'),
      join('examples', 'require-team-label', 'policy.yaml'),
    ]);
    expect(local.rejected).toHaveLength(1);
    expect(local.rejected[0]!.policy.source).toBe(join('examples', 'broken', 'policy.yaml'));
    expect(local.rejected[0]!.message).toContain('admission webhook "validate-policy.edict.svc" denied the request');
  });

  it("refuses an invalid cleanup policy through the cleanup controller's own webhook", async () => {
    const refused = await custom
      .createClusterCustomObject({
        group: 'kyverno.io',
        version: 'v2',
        plural: 'clustercleanuppolicies',
        body: {
          apiVersion: 'kyverno.io/v2',
          kind: 'ClusterCleanupPolicy',
          metadata: { name: 'bad-schedule' },
          spec: { match: { any: [{ resources: { kinds: ['Pod'] } }] }, schedule: 'invalid-schedule' },
        },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(apiErrorMessage(refused)).toContain(
      'admission webhook "edict-cleanup-controller.edict.svc" denied the request: spec.schedule: invalid cron schedule',
    );
  });

  it('denies a Pod an example policy forbids, through the API server, with the policy message', async () => {
    const denied = await core.createNamespacedPod({ namespace: 'default', body: testPod('unlabelled') }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((denied as { code?: number }).code).toBe(403);
    const message = apiErrorMessage(denied);
    expect(message).toContain('admission webhook "validate.edict.svc-fail" denied the request');
    expect(message).toContain('require-team-label');
    expect(message).toContain('The label `team` is required.');
  });

  it('denies a privileged container (the other example) and admits a compliant Pod', async () => {
    const privileged = testPod('privileged', { team: 'web' });
    (privileged.spec.containers[0] as Record<string, unknown>).securityContext = { privileged: true };
    const denied = await core.createNamespacedPod({ namespace: 'default', body: privileged }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(apiErrorMessage(denied)).toContain('no-privileged-pods');
    expect(apiErrorMessage(denied)).toContain('Containers must not run privileged.');

    const created = await core.createNamespacedPod({
      namespace: 'default',
      body: testPod('labelled', { team: 'web' }),
    });
    expect(created.metadata?.uid).toBeTruthy();
  });

  it('serves Swagger at https://127.0.0.1:<port>/docs with a certificate valid for that address', async () => {
    const ca = readFileSync(local.caPath, 'utf8');
    expect((await httpsGet(local.controller.port, '/docs', ca)).status).toBe(200);
    const document = await httpsGet(local.controller.port, '/docs-json', ca);
    expect(JSON.parse(document.body)).toMatchObject({ openapi: expect.stringMatching(/^3\./) });
  });
});

describe("local mode under Kyverno's names (EDICT_INSTALL_NAME=kyverno)", () => {
  let local: LocalCluster | undefined;

  afterAll(async () => {
    await local?.stop();
  });

  it("runs as Service kyverno/kyverno-svc, publishes Kyverno's configurations and enforces through them", async () => {
    const dir = tempDir('launcher-kyverno');
    local = await startLocalCluster({
      apiPort: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
      examplesDir: REPO_EXAMPLES,
      env: { EDICT_INSTALL_NAME: 'kyverno' },
      controller: FAST_CONTROLLER,
      logger: false,
      readyTimeoutMs: 15_000,
    });
    expect(local.config).toMatchObject({ installName: 'kyverno', namespace: 'kyverno', serviceName: 'kyverno-svc' });
    expect(local.apiServer.get('v1', 'Namespace', 'kyverno')).toBeDefined();
    expect(local.apiServer.get('v1', 'Namespace', 'edict')).toBeUndefined();
    const names = local.apiServer
      .list('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration')
      .map((configuration) => (configuration.metadata as { name: string }).name)
      .sort();
    expect(names).toEqual([
      'kyverno-cleanup-validating-webhook-cfg',
      'kyverno-exception-validating-webhook-cfg',
      'kyverno-global-context-validating-webhook-cfg',
      'kyverno-policy-validating-webhook-cfg',
      'kyverno-resource-validating-webhook-cfg',
      'kyverno-ttl-validating-webhook-cfg',
    ]);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(local.kubeconfigPath);
    const denied = await kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespacedPod({ namespace: 'default', body: testPod('unlabelled') })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(apiErrorMessage(denied)).toContain('admission webhook "validate.kyverno.svc-fail" denied the request');
  });
});

describe('local mode: ports and stopping', () => {
  const options = (dir: string) => ({
    apiPort: 0,
    kubeconfigPath: join(dir, 'kubeconfig'),
    examplesDir: REPO_EXAMPLES,
    env: {},
    controller: FAST_CONTROLLER,
    logger: false as const,
    readyTimeoutMs: 15_000,
  });

  it('fails clearly when the API server port is taken', async () => {
    const holder = await occupyPort();
    const port = (holder.address() as { port: number }).port;
    try {
      await expect(startLocalCluster({ ...options(tempDir('taken')), apiPort: port })).rejects.toThrow(
        `API server: port ${port} on 127.0.0.1 is already in use (another \`npm start\`?). Stop that process or choose another port with EDICT_API_PORT=<port>.`,
      );
    } finally {
      holder.close();
    }
  });

  it('fails clearly when the webhook port is taken, leaving nothing running', async () => {
    const holder = await occupyPort();
    const port = (holder.address() as { port: number }).port;
    const dir = tempDir('taken');
    try {
      await expect(startLocalCluster({ ...options(dir), controller: { ...FAST_CONTROLLER, port } })).rejects.toThrow(
        /admission controller: port \d+ on 127\.0\.0\.1 is already in use .*EDICT_WEBHOOK_PORT=<port>/,
      );
      expect(existsSync(join(dir, 'kubeconfig'))).toBe(false);
    } finally {
      holder.close();
    }
  });

  it('replaces the kubeconfig of a run that crashed, and stops the controller and the API server, removing its kubeconfig', async () => {
    const dir = tempDir('stop');
    writeFileSync(join(dir, 'kubeconfig'), 'server: https://127.0.0.1:6443 # a crashed run');
    writeFileSync(join(dir, 'ca.crt'), 'an old CA');
    const local = await startLocalCluster(options(dir));
    expect(local.staleFilesRemoved).toEqual([join(dir, 'kubeconfig'), join(dir, 'ca.crt')]);
    expect(readFileSync(local.kubeconfigPath, 'utf8')).toContain(`server: ${local.apiUrl}`);
    const apiPort = Number(new URL(local.apiUrl).port);
    expect(await listening(apiPort)).toBe(true);
    expect(await listening(local.controller.port)).toBe(true);
    await Promise.all([local.stop(), local.stop()]);
    expect(await listening(apiPort)).toBe(false);
    expect(await listening(local.controller.port)).toBe(false);
    expect(existsSync(local.kubeconfigPath)).toBe(false);
    expect(existsSync(local.caPath)).toBe(false);
  });
});
