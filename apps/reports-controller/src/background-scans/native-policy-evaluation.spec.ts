import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import type { ParamSource } from '@edict/native-policies';
import {
  MUTATION_APPLIED,
  MUTATION_NOT_APPLIED,
  NativeBindingError,
  scanMutatingAdmissionPolicy,
  scanValidatingAdmissionPolicy,
  type NativeScanInput,
} from './native-policy-evaluation';

function vap(name: string, spec: JsonObject): JsonObject {
  const matchConstraints = {
    resourceRules: [
      { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
    ],
  };
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints, ...spec },
  };
}

function binding(name: string, policyName: string, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'], ...spec },
  };
}

function deployment(name: string, replicas: number): JsonObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'team-a' }, spec: { replicas } };
}

const REPLICAS = vap('replicas', { validations: [{ expression: 'object.spec.replicas <= 5' }] });

function input(
  object: JsonObject,
  namespaceLabels: Record<string, string> = {},
  params?: ParamSource,
): NativeScanInput {
  const apiVersion = String(object.apiVersion);
  const slash = apiVersion.indexOf('/');
  const metadata = object.metadata as { name: string; namespace?: string };
  const plural = object.kind === 'ConfigMap' ? 'configmaps' : 'deployments';
  return {
    attributes: {
      operation: 'CREATE',
      kind: {
        group: slash < 0 ? '' : apiVersion.slice(0, slash),
        version: apiVersion.slice(slash + 1),
        kind: String(object.kind),
      },
      resource: {
        group: slash < 0 ? '' : apiVersion.slice(0, slash),
        version: apiVersion.slice(slash + 1),
        resource: plural,
      },
      subresource: '',
      name: metadata.name,
      namespace: metadata.namespace ?? '',
      object,
      oldObject: null,
    },
    namespaceObject: metadata.namespace
      ? { apiVersion: 'v1', kind: 'Namespace', metadata: { name: metadata.namespace, labels: namespaceLabels } }
      : null,
    ...(params ? { params } : {}),
  };
}

describe('scanValidatingAdmissionPolicy', () => {
  it("runs a policy without bindings on its own: a fail with kube-apiserver's message, a pass with none", async () => {
    await expect(scanValidatingAdmissionPolicy(REPLICAS, [], input(deployment('big', 7)))).resolves.toEqual({
      status: 'fail',
      message: 'failed expression: object.spec.replicas <= 5',
    });
    await expect(scanValidatingAdmissionPolicy(REPLICAS, [], input(deployment('small', 3)))).resolves.toEqual({
      status: 'pass',
      message: '',
    });
  });

  it('says nothing of a resource its matchConstraints do not cover', async () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'team-a' } };
    await expect(scanValidatingAdmissionPolicy(REPLICAS, [], input(configMap))).resolves.toBeUndefined();
  });

  it('with bindings, only those whose matchResources cover the resource run, and name the result', async () => {
    const staging = binding('staging', 'replicas', {
      matchResources: { namespaceSelector: { matchLabels: { environment: 'staging' } } },
    });
    // The namespace is not labelled staging: no binding applies, so no result (Kyverno writes no report).
    await expect(
      scanValidatingAdmissionPolicy(REPLICAS, [staging], input(deployment('big', 7), { environment: 'prod' })),
    ).resolves.toBeUndefined();
    await expect(
      scanValidatingAdmissionPolicy(REPLICAS, [staging], input(deployment('small', 3), { environment: 'staging' })),
    ).resolves.toEqual({ status: 'pass', message: '', binding: 'staging' });
  });

  it('ignores bindings of other policies, and the last matching binding gives the result', async () => {
    const other = binding('other', 'someone-else');
    await expect(scanValidatingAdmissionPolicy(REPLICAS, [other], input(deployment('big', 7)))).resolves.toMatchObject({
      status: 'fail',
    });
    const first = binding('first', 'replicas');
    const second = binding('second', 'replicas', { validationActions: ['Audit'] });
    await expect(
      scanValidatingAdmissionPolicy(REPLICAS, [first, second], input(deployment('big', 7))),
    ).resolves.toEqual({ status: 'fail', message: 'failed expression: object.spec.replicas <= 5', binding: 'second' });
  });

  it('reports a failing validation as a fail whatever the validationActions (Warn, Audit)', async () => {
    const warn = binding('warn', 'replicas', { validationActions: ['Warn'] });
    await expect(scanValidatingAdmissionPolicy(REPLICAS, [warn], input(deployment('big', 7)))).resolves.toMatchObject({
      status: 'fail',
      binding: 'warn',
    });
  });

  it('sees no user in a background scan (request.userInfo is empty), as Kyverno', async () => {
    const policy = vap('user', { validations: [{ expression: 'has(request.userInfo.username)', message: 'no user' }] });
    await expect(scanValidatingAdmissionPolicy(policy, [], input(deployment('d', 1)))).resolves.toEqual({
      status: 'fail',
      message: 'no user',
    });
  });

  it('skips when the matchConditions are not met, errors when an expression cannot be evaluated', async () => {
    const conditional = vap('conditional', {
      matchConditions: [{ name: 'named', expression: "object.metadata.name == 'another'" }],
      validations: [{ expression: 'false' }],
    });
    await expect(scanValidatingAdmissionPolicy(conditional, [], input(deployment('d', 1)))).resolves.toEqual({
      status: 'skip',
      message: "match conditions aren't met",
    });
    const broken = vap('broken', { validations: [{ expression: 'object.spec.missing.field == 1' }] });
    await expect(scanValidatingAdmissionPolicy(broken, [], input(deployment('d', 1)))).resolves.toMatchObject({
      status: 'error',
    });
  });

  it('reports a policy whose CEL does not compile as an error naming the field', async () => {
    const policy = vap('bad', { validations: [{ expression: 'object.spec.replicas <=' }] });
    const outcome = await scanValidatingAdmissionPolicy(policy, [], input(deployment('d', 1)));
    expect(outcome?.status).toBe('error');
    expect(outcome?.message).toMatch(/^compilation error: .*spec\.validations\[0\]\.expression/);
  });

  it('gives the params of the binding to the validations, from the param source', async () => {
    const policy = vap('max', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'object.spec.replicas <= int(params.data.max)' }],
    });
    const limits = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'limits', namespace: 'team-a' },
      data: { max: '2' },
    };
    const params: ParamSource = {
      namespaced: () => true,
      get: (_kind, namespace, name) => (namespace === 'team-a' && name === 'limits' ? limits : undefined),
      list: () => [],
    };
    const bound = binding('max-binding', 'max', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } });
    await expect(
      scanValidatingAdmissionPolicy(policy, [bound], input(deployment('d', 3), {}, params)),
    ).resolves.toEqual({
      status: 'fail',
      message: 'failed expression: object.spec.replicas <= int(params.data.max)',
      binding: 'max-binding',
    });
    // A paramRef that finds nothing with parameterNotFoundAction Deny fails the scan, naming the binding.
    const missing = binding('missing', 'max', { paramRef: { name: 'nope', parameterNotFoundAction: 'Deny' } });
    await expect(
      scanValidatingAdmissionPolicy(policy, [missing], input(deployment('d', 3), {}, params)),
    ).rejects.toThrow(NativeBindingError);
    await expect(
      scanValidatingAdmissionPolicy(policy, [missing], input(deployment('d', 3), {}, params)),
    ).rejects.toThrow(
      /ValidatingAdmissionPolicy max with binding missing: failed to configure binding: no params found/,
    );
    // With Allow, a binding without params has nothing to say.
    const allow = binding('allow', 'max', { paramRef: { name: 'nope', parameterNotFoundAction: 'Allow' } });
    await expect(
      scanValidatingAdmissionPolicy(policy, [allow], input(deployment('d', 3), {}, params)),
    ).resolves.toBeUndefined();
  });
});

/** A MutatingAdmissionPolicy adding the lfx-mentorship label to ConfigMaps (Kyverno's test). */
function labelPolicy(apiVersion = 'admissionregistration.k8s.io/v1beta1'): JsonObject {
  return {
    apiVersion,
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: 'add-label' },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
      },
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      mutations: [
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: {
            expression:
              'object.metadata.?labels["lfx-mentorship"].hasValue() ? Object{} : Object{ metadata: Object.metadata{ labels: {"lfx-mentorship": "kyverno"}}}',
          },
        },
      ],
    },
  };
}

function mapBinding(name: string, policyName: string, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1beta1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, ...spec },
  };
}

function configMap(labels: Record<string, string> = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'zk', namespace: 'default', labels },
    data: { a: 'b' },
  };
}

describe('scanMutatingAdmissionPolicy', () => {
  it('fails a resource the policy would still change, passes one already mutated', async () => {
    const bound = [mapBinding('add-label-binding', 'add-label')];
    await expect(scanMutatingAdmissionPolicy(labelPolicy(), bound, input(configMap()))).resolves.toEqual({
      status: 'fail',
      message: MUTATION_NOT_APPLIED,
      binding: 'add-label-binding',
    });
    await expect(
      scanMutatingAdmissionPolicy(labelPolicy(), bound, input(configMap({ 'lfx-mentorship': 'kyverno' }))),
    ).resolves.toEqual({ status: 'pass', message: MUTATION_APPLIED, binding: 'add-label-binding' });
  });

  it('runs unbound without bindings, and not at all when no binding covers the resource', async () => {
    await expect(
      scanMutatingAdmissionPolicy(labelPolicy('admissionregistration.k8s.io/v1'), [], input(configMap())),
    ).resolves.toEqual({
      status: 'fail',
      message: MUTATION_NOT_APPLIED,
    });
    const elsewhere = mapBinding('elsewhere', 'add-label', {
      matchResources: { namespaceSelector: { matchLabels: { team: 'b' } } },
    });
    await expect(scanMutatingAdmissionPolicy(labelPolicy(), [elsewhere], input(configMap()))).resolves.toBeUndefined();
  });

  it('applies bindings one after the other: the second sees what the first left', async () => {
    const bound = [mapBinding('one', 'add-label'), mapBinding('two', 'add-label')];
    // The first binding's patch adds the label, so the second finds nothing to change.
    await expect(scanMutatingAdmissionPolicy(labelPolicy(), bound, input(configMap()))).resolves.toEqual({
      status: 'pass',
      message: MUTATION_APPLIED,
      binding: 'two',
    });
  });

  it('skips when matchConditions are not met; a mutation that fails gives no result', async () => {
    const conditional = labelPolicy();
    (conditional.spec as JsonObject).matchConditions = [{ name: 'never', expression: 'false' }];
    await expect(scanMutatingAdmissionPolicy(conditional, [], input(configMap()))).resolves.toEqual({
      status: 'skip',
      message: "match conditions aren't met",
    });
    const failing = labelPolicy();
    (failing.spec as JsonObject).mutations = [
      { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "remove", path: "/spec/nothing"}]' } },
    ];
    await expect(scanMutatingAdmissionPolicy(failing, [], input(configMap()))).resolves.toBeUndefined();
  });
});
