/**
 * MutatingPolicies at admission, end to end through the in-memory API server's admission chain and
 * the webhook configuration the controller publishes: the `mpol` webhook appears for the policy
 * (and its status says WebhookConfigured), a ConfigMap is created patched, a NamespacedMutatingPolicy
 * patches only its own namespace, a Fail policy that errors refuses the request with Kyverno's
 * message, and the mutation leaves a PolicyApplied Event and Kyverno's mutating policy metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreV1Api } from '@kubernetes/client-node';
import { eventually } from '@edict/kube/testing';
import type { JsonObject } from '@edict/foundation';
import { waitForWebhook } from '@edict/controller-runtime/testing';
import { AfterAdmissionService } from './after-admission/after-admission.service';
import type { RunningController } from './bootstrap';
import { AdmissionMetrics } from './metrics/admission-metrics';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CONFIGMAPS = {
  resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
};

function mutatingPolicy(name: string, expression: string, extra: Obj = {}, namespace?: string): JsonObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: {
      matchConstraints: CONFIGMAPS,
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression } }],
      ...extra,
    },
  };
}

const label = (key: string, value: string) =>
  `Object{metadata: Object.metadata{labels: Object.metadata.labels{${key}: "${value}"}}}`;

describe('MutatingPolicies at admission', () => {
  let cluster: E2eCluster;
  let controller: RunningController;
  let core: CoreV1Api;
  const configMap = (name: string, namespace = 'default', labels: Record<string, string> = { app: 'x' }) =>
    core.createNamespacedConfigMap({ namespace, body: { metadata: { name, labels }, data: { k: 'v' } } });

  beforeAll(async () => {
    cluster = await startE2eCluster();
    core = cluster.core;
    // Success events at admission only with the ConfigMap's generateSuccessEvents, as in Kyverno.
    await core.createNamespacedConfigMap({
      namespace: cluster.names.namespace,
      body: { metadata: { name: cluster.names.configMap }, data: { generateSuccessEvents: 'true' } },
    });
    controller = await cluster.startReplica({ omitEvents: [] });
    for (const name of ['team-a', 'team-b']) await core.createNamespace({ body: { metadata: { name } } });
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
  }, 30_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('publishes the mpol webhook, marks the policy WebhookConfigured and patches a created ConfigMap', async () => {
    cluster.apiServer.create(mutatingPolicy('add-owner', label('owner', 'platform')));
    await waitForWebhook(
      cluster.apiServer,
      'MutatingWebhookConfiguration',
      'mpol.validate.edict.svc-fail',
      'configmaps',
      15_000,
    );
    await eventually(() => {
      const policy = cluster.apiServer.get('policies.kyverno.io/v1', 'MutatingPolicy', 'add-owner') as Obj;
      return policy.status?.conditionStatus?.ready === true;
    }, 'the MutatingPolicy Ready');
    const policy = cluster.apiServer.get('policies.kyverno.io/v1', 'MutatingPolicy', 'add-owner') as Obj;
    expect(policy.status.conditionStatus.conditions).toContainEqual(
      expect.objectContaining({ type: 'WebhookConfigured', status: 'True', message: 'Webhook configured.' }),
    );
    const webhook = (
      cluster.apiServer.get(
        'admissionregistration.k8s.io/v1',
        'MutatingWebhookConfiguration',
        'edict-resource-mutating-webhook-cfg',
      ) as Obj
    ).webhooks.find((hook: Obj) => hook.name === 'mpol.validate.edict.svc-fail');
    expect(webhook).toMatchObject({ reinvocationPolicy: 'Never', sideEffects: 'NoneOnDryRun', failurePolicy: 'Fail' });
    expect(webhook.clientConfig.service?.path ?? webhook.clientConfig.url).toMatch(/\/mpol\/add-owner$/);

    const created = await configMap('patched');
    expect(created.metadata?.labels).toEqual({ app: 'x', owner: 'platform' });
  }, 40_000);

  it('keeps a NamespacedMutatingPolicy to its own namespace', async () => {
    cluster.apiServer.create(mutatingPolicy('team-label', label('team', 'a'), {}, 'team-a'));
    await waitForWebhook(
      cluster.apiServer,
      'MutatingWebhookConfiguration',
      'mpol.validate.edict.svc-fail-finegrained-team-a.team-label',
      'configmaps',
      15_000,
    );
    const inside = await configMap('inside', 'team-a');
    const outside = await configMap('outside', 'team-b');
    expect(inside.metadata?.labels).toMatchObject({ team: 'a', owner: 'platform' });
    expect(outside.metadata?.labels).toEqual({ app: 'x', owner: 'platform' });
  }, 40_000);

  it("refuses a request a Fail policy errors on, with Kyverno's message", async () => {
    cluster.apiServer.create(
      mutatingPolicy('broken', "Object{metadata: Object.metadata{labels: {'x': string(object.data['missing'])}}}", {
        matchConditions: [{ name: 'only-broken', expression: "object.metadata.name.startsWith('broken')" }],
      }),
    );
    await waitForWebhook(
      cluster.apiServer,
      'MutatingWebhookConfiguration',
      'mpol.validate.edict.svc-fail-finegrained-broken',
      'configmaps',
      15_000,
    );
    const refused = await configMap('broken-one').then(
      () => undefined,
      (error: { body?: string }) => error,
    );
    expect(refused).toBeDefined();
    expect(String(refused?.body)).toContain(
      'Resource: default/broken-one, Kind: ConfigMap, Errors: [Policy broken: failed to evaluate policy:',
    );
  }, 40_000);

  it('leaves a PolicyApplied Event on the policy and counts kyverno_mutating_policy_results_total', async () => {
    await controller.app.get(AfterAdmissionService).whenIdle();
    await eventually(
      () =>
        (cluster.apiServer.list('events.k8s.io/v1', 'Event', 'default') as Obj[]).some(
          (event) => event.regarding?.kind === 'MutatingPolicy' && event.regarding?.name === 'add-owner',
        ),
      'the PolicyApplied event',
    );
    const event = (cluster.apiServer.list('events.k8s.io/v1', 'Event', 'default') as Obj[]).find(
      (e) => e.regarding?.kind === 'MutatingPolicy' && e.regarding?.name === 'add-owner',
    )!;
    expect(event).toMatchObject({
      type: 'Normal',
      reason: 'PolicyApplied',
      action: 'Resource Mutated',
      regarding: { apiVersion: 'policies.kyverno.io/v1beta1', kind: 'MutatingPolicy', name: 'add-owner' },
      note: 'ConfigMap default/patched is successfully mutated',
    });
    // The kind is a label value once the controller knows it (discovery or a classic policy naming it).
    const text = await controller.app.get(AdmissionMetrics).text();
    expect(text).toMatch(
      /kyverno_mutating_policy_results_total\{policy_background_mode="true",policy_name="add-owner",policy_namespace="",resource_kind="[^"]+",resource_namespace="default",resource_request_operation="create",execution_cause="admission_request",result="pass"\} [1-9]/,
    );
    expect(text).toContain('kyverno_mutating_policy_execution_duration_seconds_bucket');
  }, 40_000);
});
