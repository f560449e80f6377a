/**
 * imageRegistry context entries in background scans, end to end through the in-memory API server
 * and an in-process OCI registry: two Audit policies with the same rule (deny images whose config
 * runs as root), one evaluated only at admission, one only by background scans (the reports
 * controller reading the registry itself, as Kyverno's reports controller does with its registry
 * client). Each Pod's PolicyReport holds the same result and message from both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@edict/kube/testing';
import { FakeRegistry } from '@edict/registry/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestReports } from '@edict/reports-controller/testing';
import { clusterPolicy, waitForWebhook } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Audit: deny Pods whose first image's config user is root, read from the registry. */
function imageUserPolicy(name: string, where: { admission: boolean; background: boolean }) {
  return clusterPolicy(name, {
    validationFailureAction: 'Audit',
    ...where,
    rules: [
      {
        name: 'non-root-image',
        match: { any: [{ resources: { kinds: ['Pod'], namespaces: ['images'] } }] },
        context: [
          {
            name: 'imageUser',
            imageRegistry: {
              reference: '{{ request.object.spec.containers[0].image }}',
              jmesPath: "configData.config.User || ''",
              // The fake registry speaks plain HTTP.
              imageRegistryCredentials: { allowInsecureRegistry: true },
            },
          },
        ],
        validate: {
          message: 'image {{ request.object.spec.containers[0].image }} runs as {{ imageUser }}',
          deny: { conditions: { any: [{ key: '{{ imageUser }}', operator: 'Equals', value: 'root' }] } },
        },
      },
    ],
  });
}

describe('imageRegistry entries in background scans', () => {
  let cluster: E2eCluster;
  let registry: FakeRegistry;
  let reports: RunningHttpController;
  const policyReport = (uid: string) =>
    cluster.apiServer.get('wgpolicyk8s.io/v1alpha2', 'PolicyReport', uid, 'images') as Obj | undefined;

  beforeAll(async () => {
    registry = await FakeRegistry.start();
    registry.pushImage('team/app', 'root', { config: { config: { User: 'root' } } });
    registry.pushImage('team/app', 'app', { config: { config: { User: 'app' } } });
    cluster = await startE2eCluster();
    // Both controllers reach the registry on loopback, which their default egress block list refuses.
    await cluster.startReplica({ egressBlockedCidrs: [] });
    reports = await startTestReports(cluster, { egressBlockedCidrs: [], backgroundScanIntervalMs: 2_000 });
    cluster.apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'images' } });
    await cluster.createClusterPolicy(imageUserPolicy('image-user-admission', { admission: true, background: false }));
    await cluster.createClusterPolicy(imageUserPolicy('image-user-scan', { admission: false, background: true }));
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
  }, 60_000);

  afterAll(async () => {
    await reports?.stop().catch(() => undefined);
    await cluster?.stop();
    await registry?.close();
  });

  /** Creates a Pod running `tag`; answers its report's result and message per policy once both are in. */
  async function resultsFor(name: string, tag: string): Promise<Record<string, { result: string; message: string }>> {
    const image = `${registry.host}/team/app:${tag}`;
    const created = await cluster.core.createNamespacedPod({
      namespace: 'images',
      body: { metadata: { name, namespace: 'images' }, spec: { containers: [{ name: 'app', image }] } },
    });
    const uid = created.metadata!.uid!;
    await eventually(() => (policyReport(uid)?.results ?? []).length === 2, `both results for ${name}`, 20_000);
    return Object.fromEntries(
      (policyReport(uid)!.results as Obj[]).map((result) => [
        result.policy,
        { result: result.result, message: result.message },
      ]),
    );
  }

  it('reports a root image as admission does: fail, naming the user read from the registry', async () => {
    const image = `${registry.host}/team/app:root`;
    const expected = { result: 'fail', message: `image ${image} runs as root` };
    expect(await resultsFor('root-pod', 'root')).toEqual({
      'image-user-admission': expected,
      'image-user-scan': expected,
    });
  }, 30_000);

  it('reports a non-root image as admission does: pass', async () => {
    const results = await resultsFor('app-pod', 'app');
    expect(results['image-user-scan']).toEqual(results['image-user-admission']);
    expect(results['image-user-scan']!.result).toBe('pass');
  }, 30_000);
});
