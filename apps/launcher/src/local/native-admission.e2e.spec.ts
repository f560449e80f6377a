/**
 * `npm start` with Kubernetes' own admission policies: a ValidatingAdmissionPolicy refuses a
 * violating Pod in the API server itself, before any webhook review (the server's record of webhook
 * calls has none for it), while Edict's webhook still reviews the Pods the policy admits; and an
 * eligible ClusterPolicy becomes such a policy (generation is on by default, as in Kyverno).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { apiErrorMessage, testPod } from '@edict/controller-runtime/testing';
import { FAST_CONTROLLER, REPO_EXAMPLES, tempDir } from '../testing/launcher-fixtures';
import { startLocalCluster, type LocalCluster } from './local-cluster';

const V1 = 'admissionregistration.k8s.io/v1';

describe('local mode with a ValidatingAdmissionPolicy', () => {
  let local: LocalCluster;
  let core: CoreV1Api;

  beforeAll(async () => {
    local = await startLocalCluster({
      apiPort: 0,
      kubeconfigPath: join(tempDir('native-admission'), 'kubeconfig'),
      examplesDir: REPO_EXAMPLES,
      env: {},
      controller: FAST_CONTROLLER,
      logger: false,
      readyTimeoutMs: 15_000,
    });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(local.kubeconfigPath);
    core = kubeConfig.makeApiClient(CoreV1Api);
    local.apiServer.create({
      apiVersion: V1,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'no-latest' },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        },
        validations: [
          {
            expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))",
            message: 'images must not use the latest tag',
          },
        ],
      },
    });
    local.apiServer.create({
      apiVersion: V1,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'no-latest' },
      spec: { policyName: 'no-latest', validationActions: ['Deny'] },
    });
  }, 60_000);

  afterAll(async () => {
    await local?.stop();
  });

  it('refuses the violating Pod in the API server, without a webhook review', async () => {
    const pod = testPod('latest-web', { team: 'web' });
    pod.spec.containers[0]!.image = 'nginx:latest';
    const refused = await core.createNamespacedPod({ namespace: 'default', body: pod }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((refused as { code?: number }).code).toBe(422);
    expect(apiErrorMessage(refused)).toBe(
      "pods \"latest-web\" is forbidden: ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest' denied request: images must not use the latest tag",
    );
    const reviews = local.apiServer.webhookCalls.calls().filter((call) => call.name === 'latest-web');
    expect(reviews).toEqual([]);
  });

  it("admits a compliant Pod, which Edict's webhook reviews", async () => {
    const created = await core.createNamespacedPod({
      namespace: 'default',
      body: testPod('pinned-web', { team: 'web' }),
    });
    expect(created.metadata?.uid).toBeTruthy();
    const reviews = local.apiServer.webhookCalls.calls().filter((call) => call.name === 'pinned-web');
    expect(reviews).toContainEqual(
      expect.objectContaining({ kind: 'validating', resource: 'pods', operation: 'CREATE' }),
    );
  });

  it('turns an eligible ClusterPolicy into a VAP, which refuses a violating ConfigMap without a webhook review', async () => {
    local.apiServer.create({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'team-label' },
      spec: {
        background: false,
        rules: [
          {
            name: 'team',
            match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
            validate: {
              failureAction: 'Enforce',
              cel: {
                generate: true,
                expressions: [
                  {
                    expression: "has(object.metadata.labels) && 'team' in object.metadata.labels",
                    message: 'a team label is required',
                  },
                ],
              },
            },
          },
        ],
      },
    });
    const generated = () =>
      local.apiServer
        .list(V1, 'ValidatingAdmissionPolicyBinding')
        .some((b) => (b.metadata as { name?: string }).name === 'cpol-team-label-binding');
    const statusGenerated = () => {
      const [policy] = local.apiServer
        .list('kyverno.io/v1', 'ClusterPolicy')
        .filter((p) => (p.metadata as { name?: string }).name === 'team-label');
      return (
        (policy?.status as { validatingadmissionpolicy?: { generated?: boolean } } | undefined)
          ?.validatingadmissionpolicy?.generated === true
      );
    };
    await expect.poll(() => generated() && statusGenerated(), { timeout: 20_000, interval: 100 }).toBe(true);
    // The webhook configurations follow the status: the policy's rules leave Edict's webhook.
    await expect
      .poll(() => JSON.stringify(local.apiServer.list(V1, 'ValidatingWebhookConfiguration')).includes('"configmaps"'), {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(false);
    const refused = await core
      .createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'no-team' } } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(apiErrorMessage(refused)).toBe(
      "configmaps \"no-team\" is forbidden: ValidatingAdmissionPolicy 'cpol-team-label' with binding 'cpol-team-label-binding' denied request: a team label is required",
    );
    expect(local.apiServer.webhookCalls.calls().filter((call) => call.name === 'no-team')).toEqual([]);
  });
});
