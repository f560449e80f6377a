// MutatingAdmissionPolicy in the server's admission chain, over HTTP: served versions, mutations,
// reinvocation, failurePolicy and kube's error answers, and the order with mutating webhooks.
import type { JsonObject } from '@edict/foundation';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { InMemoryApiServerOptions } from '../api-server';
import { startServer, type Running } from '../testing/http';
import {
  createTestCa,
  jsonPatchResponse,
  startWebhookServer,
  type TestCa,
  type TestWebhookServer,
} from '../testing/webhook-server';

const GROUP = '/apis/admissionregistration.k8s.io';
const CMS = '/api/v1/namespaces/default/configmaps';
/** Kyverno CI's vap-v1beta1 kind configuration on Kubernetes 1.34. */
const V1BETA1_CLUSTER: InMemoryApiServerOptions = {
  settings: {
    kubernetesVersion: '1.34',
    featureGates: { MutatingAdmissionPolicy: true },
    runtimeConfig: {
      'admissionregistration.k8s.io/v1alpha1': true,
      'admissionregistration.k8s.io/v1beta1': true,
    },
  },
};

let running: Running | undefined;
const webhooks: TestWebhookServer[] = [];
let ca: TestCa;
let tls: { cert: string; key: string };

beforeAll(async () => {
  ca = await createTestCa();
  tls = await ca.issue({ ips: ['127.0.0.1'], dns: ['localhost'] });
});

afterEach(async () => {
  await running?.server.stop();
  running = undefined;
  await Promise.all(webhooks.splice(0).map((webhook) => webhook.close()));
});

async function server(options: InMemoryApiServerOptions = V1BETA1_CLUSTER): Promise<Running> {
  running = await startServer(options);
  return running;
}

const CM_RULE = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] };
const apply = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } });
const setLabel = (key: string, value: string) =>
  apply(`Object{metadata: Object.metadata{labels: {'${key}': ${value}}}}`);

function policy(name: string, spec: JsonObject, version = 'v1beta1'): JsonObject {
  return {
    apiVersion: `admissionregistration.k8s.io/${version}`,
    kind: 'MutatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: [CM_RULE] }, ...spec },
  };
}

function binding(name: string, policyName: string, spec: JsonObject = {}, version = 'v1beta1'): JsonObject {
  return {
    apiVersion: `admissionregistration.k8s.io/${version}`,
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, ...spec },
  };
}

async function install(api: Running, ...objects: JsonObject[]): Promise<void> {
  for (const object of objects) {
    const plural =
      object.kind === 'MutatingAdmissionPolicy' ? 'mutatingadmissionpolicies' : 'mutatingadmissionpolicybindings';
    const version = String(object.apiVersion).split('/')[1];
    const { status, body } = await api.request('POST', `${GROUP}/${version}/${plural}`, object);
    expect(status, JSON.stringify(body)).toBe(201);
  }
}

function configMap(name: string, labels: Record<string, string> = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1' } };
}

const labelsOf = (object: JsonObject) => (object.metadata as JsonObject).labels;

describe('MutatingAdmissionPolicy served versions', () => {
  it('is not served by default (kube 1.32 without the gate), and in each version the settings enable', async () => {
    const plain = await server({});
    expect((await plain.request('GET', `${GROUP}/v1beta1/mutatingadmissionpolicies`)).status).toBe(404);
    expect((await plain.request('GET', `${GROUP}/v1/validatingadmissionpolicies`)).status).toBe(200);
    await plain.server.stop();
    const api = await server();
    for (const version of ['v1alpha1', 'v1beta1']) {
      expect((await api.request('GET', `${GROUP}/${version}/mutatingadmissionpolicybindings`)).status).toBe(200);
    }
    expect((await api.request('GET', `${GROUP}/v1/mutatingadmissionpolicies`)).status).toBe(404);
    // One object, read in every served version.
    await install(api, policy('p', { mutations: [setLabel('x', "'y'")] }, 'v1alpha1'));
    const { body } = await api.request('GET', `${GROUP}/v1beta1/mutatingadmissionpolicies/p`);
    expect(body).toMatchObject({ apiVersion: 'admissionregistration.k8s.io/v1beta1', spec: { failurePolicy: 'Fail' } });
  });
});

describe('MutatingAdmissionPolicy admission', () => {
  it('applies ApplyConfiguration and JSONPatch mutations in order with params', async () => {
    const api = await server();
    await api.request('POST', CMS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owner' },
      data: { team: 'blue' },
    });
    await install(
      api,
      policy('label', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        variables: [{ name: 'team', expression: 'params.data.team' }],
        mutations: [
          setLabel('team', 'variables.team'),
          jsonPatch("[JSONPatch{op: 'add', path: '/data/copied', value: object.metadata.labels.team}]"),
        ],
      }),
      binding('label', 'label', { paramRef: { name: 'owner', parameterNotFoundAction: 'Deny' } }),
    );
    const { status, body } = await api.request('POST', CMS, configMap('cm'));
    expect(status).toBe(201);
    expect(labelsOf(body)).toEqual({ team: 'blue' });
    expect(body.data).toEqual({ a: '1', copied: 'blue' });
  });

  it('skips a request whose matchConditions are false and an object outside the binding', async () => {
    const api = await server();
    await install(
      api,
      policy('label', {
        matchConditions: [{ name: 'not-skipped', expression: "!('skip' in object.metadata.labels)" }],
        mutations: [setLabel('mutated', "'yes'")],
      }),
      binding('label', 'label', { matchResources: { objectSelector: { matchLabels: { opt: 'in' } } } }),
    );
    expect(labelsOf((await api.request('POST', CMS, configMap('out'))).body)).toEqual({});
    expect(labelsOf((await api.request('POST', CMS, configMap('skip', { opt: 'in', skip: '' }))).body)).toEqual({
      opt: 'in',
      skip: '',
    });
    expect(labelsOf((await api.request('POST', CMS, configMap('in', { opt: 'in' }))).body)).toEqual({
      opt: 'in',
      mutated: 'yes',
    });
  });

  it('reinvokes an IfNeeded policy once a later policy changed the object; Never is not', async () => {
    const api = await server();
    const copy = (name: string, reinvocationPolicy: string) =>
      policy(name, {
        reinvocationPolicy,
        mutations: [
          apply(
            `has(object.metadata.labels) && 'source' in object.metadata.labels ? Object{metadata: Object.metadata{labels: {'${name}': object.metadata.labels.source}}} : Object{}`,
          ),
        ],
      });
    // Policies run in name order: both copiers run before the source is set.
    await install(
      api,
      copy('a-if-needed', 'IfNeeded'),
      binding('a-if-needed', 'a-if-needed'),
      copy('b-never', 'Never'),
      binding('b-never', 'b-never'),
      policy('c-source', { mutations: [setLabel('source', "'set'")] }),
      binding('c-source', 'c-source'),
    );
    const { body } = await api.request('POST', CMS, configMap('cm'));
    expect(labelsOf(body)).toEqual({ source: 'set', 'a-if-needed': 'set' });
  });

  it("failurePolicy Fail refuses with kube's policy error (403, reason Invalid); Ignore admits unchanged", async () => {
    const api = await server();
    const failing = (name: string, failurePolicy: string) =>
      policy(name, { failurePolicy, mutations: [apply('Object{data: {"x": object.data.missing}}')] });
    await install(api, failing('ignored', 'Ignore'), binding('ignored', 'ignored'));
    const admitted = await api.request('POST', CMS, configMap('admitted'));
    expect(admitted.status).toBe(201);
    expect(admitted.body.data).toEqual({ a: '1' });
    await install(api, failing('failing', 'Fail'), binding('failing-binding', 'failing'));
    const { status, body } = await api.request('POST', CMS, configMap('refused'));
    expect(status).toBe(403);
    expect(body.reason).toBe('Invalid');
    expect(String(body.message)).toMatch(/^policy 'failing' with binding 'failing-binding' denied request: /);
    expect(body.details).toMatchObject({ name: 'refused', kind: 'configmaps', causes: [{ message: body.message }] });
  });

  it('refuses when a Deny binding finds no param (failed to configure binding, reason Forbidden)', async () => {
    const api = await server();
    await install(
      api,
      policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, mutations: [setLabel('x', "'y'")] }),
      binding('b', 'p', { paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } }),
    );
    const { status, body } = await api.request('POST', CMS, configMap('cm'));
    expect(status).toBe(403);
    expect(body).toMatchObject({
      reason: 'Forbidden',
      message:
        "policy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    });
  });

  it('runs before the mutating webhooks, and an IfNeeded policy runs again after a webhook changed the object', async () => {
    const webhook = await startWebhookServer(tls, () =>
      jsonPatchResponse([{ op: 'add', path: '/metadata/labels/source', value: 'webhook' }]),
    );
    webhooks.push(webhook);
    const api = await server();
    await api.request('POST', `${GROUP}/v1/mutatingwebhookconfigurations`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'labeller' },
      webhooks: [
        {
          name: 'labeller.edict.test',
          clientConfig: { url: `${webhook.url}/mutate`, caBundle: ca.caBundle },
          rules: [CM_RULE],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    await install(
      api,
      policy('copier', {
        reinvocationPolicy: 'IfNeeded',
        mutations: [
          apply(
            "Object{metadata: Object.metadata{labels: {'seen': 'source' in object.metadata.labels ? object.metadata.labels.source : 'nothing'}}}",
          ),
        ],
      }),
      binding('copier', 'copier'),
    );
    const { body } = await api.request('POST', CMS, configMap('cm', { app: 'x' }));
    // The webhook received the policy's mutation; the policy then ran again on the webhook's.
    expect(labelsOf(webhook.calls[0]!.request.object as JsonObject)).toEqual({ app: 'x', seen: 'nothing' });
    expect(labelsOf(body)).toEqual({ app: 'x', seen: 'webhook', source: 'webhook' });
  });
});
