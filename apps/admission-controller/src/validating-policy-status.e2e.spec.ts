/**
 * End to end, through the real kubectl against the in-memory cluster and one admission controller:
 * a ValidatingPolicy becomes Ready as Kyverno's chainsaw suite waits for it (WebhookConfigured and
 * RBACPermissionsGranted, `ready: true`), shows in `kubectl get vpol` with Kyverno's columns, is
 * published as a `vpol` webhook, and shows its autogen configs; a policy whose CEL does not
 * type-check is refused by the policy validation webhook naming the field and the compiler message;
 * a typo in a field name is refused by the CRD's schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import {
  hasKubectl,
  kubectlSession,
  MISSING_KUBECTL,
  skipWithoutKubectl,
  tableRows,
  type KubectlSession,
} from '@edict/apiserver/testing';
import { eventually } from '@edict/kube/testing';
import { waitForWebhook } from '@edict/controller-runtime/testing';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';

interface VpolView {
  status?: {
    conditionStatus?: { ready?: boolean; conditions?: Array<Record<string, unknown>>; message?: string };
    autogen?: { configs?: Record<string, { targets: Array<{ kind: string }> }> };
    generated?: boolean;
  };
}

const policyYaml = (name: string, resources: string, expression: string, extra = '') => `
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: ${name}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
    - apiGroups: ["${resources === 'pods' ? '' : 'apps'}"]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [${resources}]
${extra}  validations:
  - expression: ${JSON.stringify(expression)}
    message: labels are required
`;

if (!hasKubectl) {
  it.skipIf(skipWithoutKubectl)('needs kubectl', () => {
    throw new Error(MISSING_KUBECTL);
  });
}

describe.skipIf(!hasKubectl)('ValidatingPolicies in the cluster', () => {
  let cluster: E2eCluster;
  let kubectl: KubectlSession;
  const vpolNamed = (name: string) =>
    cluster.apiServer.get('policies.kyverno.io/v1', 'ValidatingPolicy', name) as unknown as VpolView | undefined;

  beforeAll(async () => {
    cluster = await startE2eCluster();
    await cluster.startReplica();
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    const server = /server: (\S+)/.exec(cluster.kubeconfig)![1]!;
    kubectl = kubectlSession(server);
  }, 30_000);
  afterAll(async () => {
    kubectl?.close();
    await cluster?.stop();
  });

  it('brings a ValidatingPolicy to Ready, publishes its webhook and shows it in kubectl get vpol', async () => {
    const file = kubectl.file(
      'vpol.yaml',
      policyYaml(
        'check-deployment-labels',
        'deployments',
        "has(object.metadata.labels) && 'env' in object.metadata.labels",
      ),
    );
    await kubectl.run('apply', '-f', file);
    await eventually(
      () => vpolNamed('check-deployment-labels')?.status?.conditionStatus?.ready === true,
      'vpol Ready',
      15_000,
    );

    const status = vpolNamed('check-deployment-labels')!.status!;
    expect(status.conditionStatus!.conditions).toEqual([
      expect.objectContaining({
        type: 'WebhookConfigured',
        status: 'True',
        reason: 'Succeeded',
        message: 'Webhook configured.',
      }),
      expect.objectContaining({
        type: 'RBACPermissionsGranted',
        status: 'True',
        reason: 'Succeeded',
        message: 'Policy is ready for reporting.',
      }),
    ]);
    expect(status.generated).toBe(false);

    const configuration = cluster.apiServer.get(
      'admissionregistration.k8s.io/v1',
      'ValidatingWebhookConfiguration',
      cluster.names.webhookConfigurations.resourceValidating,
    ) as unknown as { webhooks: Array<{ name: string; clientConfig: JsonObject; rules: JsonObject[] }> };
    const hook = configuration.webhooks.find((h) => h.name === `vpol.${cluster.names.webhooks.validating}-fail`);
    expect(hook).toBeDefined();
    expect(JSON.stringify(hook!.clientConfig)).toContain('/vpol/check-deployment-labels');
    expect(hook!.rules).toEqual([
      expect.objectContaining({
        apiGroups: ['apps'],
        apiVersions: ['v1'],
        resources: ['deployments'],
        operations: ['CREATE', 'UPDATE'],
      }),
    ]);

    const table = tableRows(await kubectl.run('get', 'vpol'));
    expect(table[0]).toEqual(['NAME', 'AGE', 'READY']);
    expect(table[1]).toEqual(['check-deployment-labels', expect.stringMatching(/^\d+s$/), 'true']);
    // The same object through the stored and the deprecated versions.
    expect(tableRows(await kubectl.run('get', 'validatingpolicies.v1beta1.policies.kyverno.io'))[1]![0]).toBe(
      'check-deployment-labels',
    );
  }, 30_000);

  it('writes the autogen configs of a Pod policy in its status', async () => {
    const file = kubectl.file('pods.yaml', policyYaml('pods-labelled', 'pods', 'has(object.metadata.labels)'));
    await kubectl.run('apply', '-f', file);
    await eventually(
      () => vpolNamed('pods-labelled')?.status?.conditionStatus?.ready === true,
      'pod vpol Ready',
      15_000,
    );
    const configs = vpolNamed('pods-labelled')!.status!.autogen!.configs!;
    expect(Object.keys(configs).sort()).toEqual(['cronjobs', 'defaults']);
    expect(configs.cronjobs!.targets.map((t) => t.kind)).toEqual(['CronJob']);
  }, 30_000);

  it('refuses a policy whose CEL does not type-check, naming the field and the compiler message', async () => {
    const file = kubectl.file('bad.yaml', policyYaml('bad-cel', 'deployments', "objekt.metadata.name == 'x'"));
    const answer = await kubectl.attempt('apply', '-f', file);
    expect(answer.code).not.toBe(0);
    expect(answer.stderr).toContain('admission webhook "validate-policy.edict.svc" denied the request');
    expect(answer.stderr).toMatch(/spec\.validations\[0\]\.expression: .*objekt/);
    expect(vpolNamed('bad-cel')).toBeUndefined();
  }, 30_000);

  it('refuses a typo in a field name (the CRD schema, strict field validation)', async () => {
    const typo = policyYaml('typo', 'deployments', 'true').replace('validationActions:', 'validationActons:');
    const answer = await kubectl.attempt('apply', '-f', kubectl.file('typo.yaml', typo));
    expect(answer.code).not.toBe(0);
    expect(answer.stderr).toContain('unknown field "spec.validationActons"');
  }, 30_000);
});
