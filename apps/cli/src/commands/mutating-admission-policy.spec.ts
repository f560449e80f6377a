import { describe, expect, it } from 'vitest';
import { defaultEngineFactory } from '@edict/kyverno-test';
import { testFile, writeTree, yaml } from '@edict/kyverno-test/testing';
import { join } from 'node:path';
import { runCliOn } from '../testing/run-cli';

const cli = (args: string[]) => runCliOn(defaultEngineFactory, args);

const policy = {
  apiVersion: 'admissionregistration.k8s.io/v1beta1',
  kind: 'MutatingAdmissionPolicy',
  metadata: { name: 'team-label' },
  spec: {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
    },
    mutations: [
      {
        patchType: 'JSONPatch',
        jsonPatch: {
          expression:
            "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/team'), value: params.data.team}]",
        },
      },
    ],
  },
};
const binding = {
  apiVersion: 'admissionregistration.k8s.io/v1beta1',
  kind: 'MutatingAdmissionPolicyBinding',
  metadata: { name: 'team-label' },
  spec: {
    policyName: 'team-label',
    paramRef: { name: 'teams', namespace: 'default' },
    matchResources: { namespaceSelector: { matchLabels: { owned: 'yes' } } },
  },
};
const params = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'teams', namespace: 'default' },
  data: { team: 'blue' },
};
const configMap = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels: { app: 'x' } },
  data: { a: '1' },
});
const values = {
  apiVersion: 'cli.kyverno.io/v1alpha1',
  kind: 'Value',
  metadata: { name: 'values' },
  namespaceSelector: [
    { name: 'owned', labels: { owned: 'yes' } },
    { name: 'other', labels: { owned: 'no' } },
  ],
};

describe('MutatingAdmissionPolicy in the CLI', () => {
  it('edict test: params feed the patch of the binding selecting the namespace, patched resources are compared', async () => {
    const patched = configMap('in-owned', 'owned');
    (patched.metadata.labels as Record<string, string>)['example.com/team'] = 'blue';
    const dir = writeTree({
      'policy.yaml': yaml(policy, binding),
      'params.yaml': yaml(params),
      'resources.yaml': yaml(configMap('in-owned', 'owned'), configMap('in-other', 'other')),
      'patched.yaml': yaml(patched),
      'values.yaml': yaml(values),
      'kyverno-test.yaml': yaml(
        testFile(
          [
            {
              policy: 'team-label',
              isMutatingAdmissionPolicy: true,
              kind: 'ConfigMap',
              resources: ['in-owned'],
              patchedResources: 'patched.yaml',
              result: 'pass',
            },
          ],
          { paramResources: ['params.yaml'], variables: 'values.yaml' },
        ),
      ),
    });
    const run = await cli(['test', dir]);
    expect(run.out + run.err).toContain('Test Summary: 1 tests passed and 0 tests failed');
    expect(run.code).toBe(0);
  });

  it('edict test: a patched resource that differs fails the test', async () => {
    const wrong = configMap('in-owned', 'owned');
    (wrong.metadata.labels as Record<string, string>)['example.com/team'] = 'red';
    const dir = writeTree({
      'policy.yaml': yaml(policy, binding),
      'params.yaml': yaml(params),
      'resources.yaml': yaml(configMap('in-owned', 'owned')),
      'patched.yaml': yaml(wrong),
      'values.yaml': yaml(values),
      'kyverno-test.yaml': yaml(
        testFile(
          [
            {
              policy: 'team-label',
              isMutatingAdmissionPolicy: true,
              kind: 'ConfigMap',
              resources: ['in-owned'],
              patchedResources: 'patched.yaml',
              result: 'pass',
            },
          ],
          { paramResources: ['params.yaml'], variables: 'values.yaml' },
        ),
      ),
    });
    const run = await cli(['test', dir]);
    expect(run.code).toBe(1);
  });

  it('edict apply: prints the mutated resource and counts the rule', async () => {
    const unbound = {
      ...policy,
      spec: {
        matchConstraints: policy.spec.matchConstraints,
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}}" },
          },
        ],
      },
    };
    const dir = writeTree({ 'policy.yaml': yaml(unbound), 'resources.yaml': yaml(configMap('cm', 'default')) });
    const run = await cli(['apply', join(dir, 'policy.yaml'), '--resource', join(dir, 'resources.yaml')]);
    expect(run.err).toBe('');
    expect(run.out).toContain('Applying 1 policy rule(s) to 1 resource(s)');
    expect(run.out).toContain('policy team-label applied to default/ConfigMap/cm:');
    expect(run.out).toContain('mutated: yes');
    expect(run.out).toContain('pass: 1, fail: 0, warn: 0, error: 0, skip: 0');
    expect(run.code).toBe(0);
  });
});
