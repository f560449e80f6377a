import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigFor } from '@edict/apiserver';
import { startServer, type Running } from '@edict/apiserver/testing';
import { defaultEngineFactory } from '@edict/kyverno-test';
import { writeTree, yaml } from '@edict/kyverno-test/testing';
import { runCliOn } from '../testing/run-cli';

const cli = (args: string[]) => runCliOn(defaultEngineFactory, args);

const deployment = (name: string, labels: Record<string, string>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default', labels },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

const rules = (group: string, resources: string, names: string[]) => ({
  resourceRules: [
    {
      apiGroups: [group],
      apiVersions: ['v1'],
      operations: ['CREATE', 'UPDATE'],
      resources: [resources],
      resourceNames: names,
    },
  ],
});

describe('edict apply --cluster with CEL and admission policies', () => {
  let api: Running;
  let kubeconfig: string;

  beforeAll(async () => {
    api = await startServer();
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'edict-apply-cel-')), 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigFor({ server: api.url }));
    await api.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'default' },
    });
    for (const [name, env] of [
      ['good', 'prod'],
      ['bad', 'dev'],
    ] as const)
      await api.request('POST', '/apis/apps/v1/namespaces/default/deployments', deployment(name, { env }));
    await api.request('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'default' },
      data: { allowed: 'good', replicas: '7' },
    });
  });

  afterAll(async () => {
    await api.server.stop();
  });

  it('reads the resources a ValidatingPolicy matches from the cluster', async () => {
    const dir = writeTree({
      'policy.yaml': yaml({
        apiVersion: 'policies.kyverno.io/v1beta1',
        kind: 'ValidatingPolicy',
        metadata: { name: 'env-prod' },
        spec: {
          matchConstraints: rules('apps', 'deployments', ['good', 'bad']),
          validations: [{ expression: "object.metadata.labels['env'] == 'prod'", message: 'env must be prod' }],
        },
      }),
    });
    const { out, code } = await cli(['apply', join(dir, 'policy.yaml'), '--cluster', '--kubeconfig', kubeconfig]);
    expect(out).toContain('Applying 1 policy rule(s) to 2 resource(s)...');
    expect(out).toContain('policy env-prod -> resource default/Deployment/bad failed:');
    expect(out).not.toContain('resource default/Deployment/good failed');
    expect(out).toContain('pass: 1, fail: 1, warn: 0, error: 0, skip: 0');
    expect(code).toBe(1);
  });

  it('reads the objects resource.get names from the cluster', async () => {
    const dir = writeTree({
      'policy.yaml': yaml({
        apiVersion: 'policies.kyverno.io/v1beta1',
        kind: 'ValidatingPolicy',
        metadata: { name: 'name-from-configmap' },
        spec: {
          matchConstraints: rules('apps', 'deployments', ['good', 'bad']),
          variables: [
            { name: 'cm', expression: 'resource.get("v1", "configmaps", object.metadata.namespace, "settings")' },
          ],
          validations: [{ expression: 'object.metadata.name == variables.cm.data.allowed' }],
        },
      }),
    });
    const { out } = await cli(['apply', join(dir, 'policy.yaml'), '--cluster', '--kubeconfig', kubeconfig]);
    expect(out).toContain('policy name-from-configmap -> resource default/Deployment/bad failed:');
    expect(out).toContain('pass: 1, fail: 1, warn: 0, error: 0, skip: 0');
  });

  it("takes a MutatingAdmissionPolicy's params from the cluster through its binding's paramRef", async () => {
    const dir = writeTree({
      'policy.yaml': yaml(
        {
          apiVersion: 'admissionregistration.k8s.io/v1alpha1',
          kind: 'MutatingAdmissionPolicy',
          metadata: { name: 'replicas' },
          spec: {
            paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
            matchConstraints: rules('apps', 'deployments', ['good']),
            failurePolicy: 'Fail',
            reinvocationPolicy: 'Never',
            mutations: [
              {
                patchType: 'ApplyConfiguration',
                applyConfiguration: { expression: 'Object{spec: Object.spec{replicas: int(params.data.replicas)}}' },
              },
            ],
          },
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1alpha1',
          kind: 'MutatingAdmissionPolicyBinding',
          metadata: { name: 'replicas' },
          spec: {
            policyName: 'replicas',
            paramRef: { name: 'settings', namespace: 'default' },
            matchResources: rules('apps', 'deployments', []),
          },
        },
      ),
    });
    const output = join(dir, 'out.yaml');
    const { out } = await cli([
      'apply',
      join(dir, 'policy.yaml'),
      '--cluster',
      '--kubeconfig',
      kubeconfig,
      '-o',
      output,
    ]);
    expect(out).toContain('Mutation has been applied successfully.');
    expect(readFileSync(output, 'utf8')).toContain('replicas: 7');
  });
});
