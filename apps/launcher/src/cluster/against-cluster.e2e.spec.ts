/**
 * Cluster mode end to end: a "real" cluster stands in as an in-memory API server of its own, named
 * by KUBECONFIG; the controller runs against it with a URL-based webhook (EDICT_WEBHOOK_URL), as
 * from a laptop outside the cluster.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { InMemoryApiServer, kubeconfigFor } from '@edict/apiserver';
import { setTimeout as sleep } from 'node:timers/promises';
import { installPolicyCrds } from '@edict/policy';

import { launchModeOf } from '../launch-mode';
import { FAST_CONTROLLER, freePort, tempDir } from '../testing/launcher-fixtures';
import { startAgainstCluster, type ClusterController } from './against-cluster';
import { apiErrorMessage, requireLabelPolicy, testPod } from '@edict/controller-runtime/testing';

describe('cluster mode (EDICT_MODE=cluster npm start, with KUBECONFIG)', () => {
  let apiServer: InMemoryApiServer;
  let kubeconfigPath: string;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;

  beforeAll(async () => {
    apiServer = new InMemoryApiServer();
    const { url } = await apiServer.start({ host: '127.0.0.1', port: 0 });
    kubeconfigPath = join(tempDir('cluster'), 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfigFor({ server: url, name: 'dev' }));
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    core = kubeConfig.makeApiClient(CoreV1Api);
    custom = kubeConfig.makeApiClient(CustomObjectsApi);
  });

  afterAll(async () => {
    await apiServer?.stop();
  });

  it('is chosen with EDICT_MODE=cluster, against the KUBECONFIG; a KUBECONFIG alone keeps the local mode', () => {
    const environment = { env: { KUBECONFIG: kubeconfigPath }, localKubeconfigPath: '.edict/kubeconfig' };
    expect(launchModeOf('cluster', environment)).toMatchObject({ kind: 'cluster', source: 'kubeconfig' });
    expect(launchModeOf('local', environment).kind).toBe('local');
  });

  it('refuses to start on a cluster without the CRDs and the namespace, saying how to add them', async () => {
    await expect(
      startAgainstCluster({ env: { KUBECONFIG: kubeconfigPath }, controller: FAST_CONTROLLER, logger: false }),
    ).rejects.toThrow(
      /lacks what Edict needs:\n {2}CRDs clusterpolicies\.kyverno\.io, policies\.kyverno\.io, policyexceptions\.kyverno\.io: kubectl apply -f charts\/edict\/files\/crds\/\n {2}namespace edict: kubectl create namespace edict/,
    );
  });

  describe('with the CRDs and the namespace', () => {
    let running: ClusterController;

    beforeAll(async () => {
      installPolicyCrds(apiServer);
      apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'edict' } });
      const port = await freePort();
      running = await startAgainstCluster({
        env: {
          KUBECONFIG: kubeconfigPath,
          EDICT_WEBHOOK_URL: `https://127.0.0.1:${port}`,
          EDICT_CERT_IP_ADDRESSES: '127.0.0.1',
        },
        controller: { ...FAST_CONTROLLER, host: '127.0.0.1', port },
        logger: false,
      });
    });

    afterAll(async () => {
      await running?.stop();
    });

    it('names the cluster it runs against', () => {
      expect(running.cluster).toBe('dev');
      expect(running.server).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(running.config.webhookUrl).toBe(`https://127.0.0.1:${running.controller.port}`);
    });

    it('enforces a policy applied to that cluster through the webhook URL', async () => {
      await custom.createClusterCustomObject({
        group: 'kyverno.io',
        version: 'v1',
        plural: 'clusterpolicies',
        body: requireLabelPolicy('Enforce', 'require-owner', 'owner'),
      });
      // The webhooks follow the policy within moments; until then the Pod is admitted (and removed).
      let message = '';
      for (let attempt = 0; attempt < 100 && message === ''; attempt++) {
        message = await core.createNamespacedPod({ namespace: 'default', body: testPod('probe') }).then(
          async () => {
            await core.deleteNamespacedPod({ namespace: 'default', name: 'probe' });
            await sleep(100);
            return '';
          },
          (error: unknown) => apiErrorMessage(error),
        );
      }
      expect(message).toContain('require-owner');
      expect(message).toContain('check-owner');
      expect(message).toContain('admission webhook "validate.edict.svc-fail" denied the request');
    });
  });
});
