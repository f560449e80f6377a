import { describe, expect, it } from 'vitest';
import { FakeResourcePort } from '@edict/cel/testing';
import type { KubeObject } from '@edict/foundation';
import { compileCelPolicyException } from '../exceptions/compile-exception';
import { generatingPolicy, inputFor, matching } from '../testing/fixtures';
import { compileGeneratingPolicy, generatingPolicyErrors } from './compile';
import { evaluateGeneratingPolicy } from './evaluate';
import { GeneratingPolicyError } from './policy-error';
import type { GeneratingPolicySpec } from './types';

const namespace = (name: string, uid = 'ns-uid'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, uid, labels: { team: 'a' } },
});

const configMapFor = (source: string) =>
  `[{"apiVersion": "v1", "kind": "ConfigMap", "metadata": dyn({"name": ${source} + "-config", "labels": {"app": "x"}}), "data": dyn({"owner": ${source}})}]`;

const onNamespaces: GeneratingPolicySpec = {
  matchConstraints: matching('', 'v1', 'namespaces'),
  variables: [{ name: 'nsName', expression: 'object.metadata.name' }],
  generate: [{ expression: `generator.Apply(variables.nsName, ${configMapFor('variables.nsName')})` }],
};

describe('generatingPolicyErrors', () => {
  it('names every problem by field', () => {
    const errors = generatingPolicyErrors(
      generatingPolicy('bad', {
        variables: [{ name: 'v', expression: 'object.metadata.name +' }],
        generate: [{ expression: 'generator.Apply(variables.missing, [])' }, {}],
      }),
    );
    expect(errors.map((error) => error.field)).toEqual([
      'spec.matchConstraints',
      'spec.generate[1]',
      'spec.variables[0].expression',
      'spec.generate[0].expression',
    ]);
    expect(errors[1]?.message).toBe('Invalid value: exactly one of expression or template must be set');
    const compileErrors = generatingPolicyErrors(
      generatingPolicy('bad', {
        matchConstraints: matching('', 'v1', 'namespaces'),
        variables: [{ name: 'v', expression: 'object.metadata.name +' }],
        generate: [{ expression: 'generator.Apply(variables.missing, [])' }, { expression: 'generator.Apply([])' }],
      }),
    );
    expect(compileErrors.map((error) => error.field)).toEqual([
      'spec.variables[0].expression',
      'spec.generate[0].expression',
      'spec.generate[1].expression',
    ]);
    expect(compileErrors[1]?.message).toContain("undefined field 'missing'");
    expect(
      generatingPolicyErrors(generatingPolicy('empty', { matchConstraints: matching('', 'v1', 'namespaces') })),
    ).toEqual([{ field: 'spec.generate', message: 'Required value: at least one generate entry is required' }]);
  });

  it('accepts a valid policy and refuses globalContext and http in a namespaced one', () => {
    expect(generatingPolicyErrors(generatingPolicy('ok', onNamespaces))).toEqual([]);
    const namespaced = generatingPolicy(
      'ns',
      {
        matchConstraints: matching('', 'v1', 'configmaps'),
        variables: [{ name: 'g', expression: 'globalContext.Get("x", "")' }],
        generate: [{ expression: 'generator.Apply([])' }],
      },
      'team-a',
    );
    expect(generatingPolicyErrors(namespaced)).toEqual([
      { field: 'spec', message: 'Forbidden: globalContext.* is not allowed in namespaced policies' },
    ]);
    expect(() => compileGeneratingPolicy(generatingPolicy('bad', {}))).toThrow(GeneratingPolicyError);
  });

  it('reads the evaluation switches (all off by default, admission on)', () => {
    const compiled = compileGeneratingPolicy(
      generatingPolicy('sync', { ...onNamespaces, evaluation: { synchronize: { enabled: true } } }),
    );
    expect(compiled).toMatchObject({
      admission: true,
      synchronize: true,
      generateExisting: false,
      orphanDownstreamOnPolicyDelete: false,
    });
  });
});

describe('evaluateGeneratingPolicy', () => {
  it('generates the objects into the namespace named, with the labels naming the policy and the trigger', async () => {
    const compiled = compileGeneratingPolicy(generatingPolicy('ns-config', onNamespaces));
    const result = await evaluateGeneratingPolicy(compiled, inputFor(namespace('team-a')), { ports: {} });
    expect(result?.status).toBe('pass');
    expect(result?.rule).toMatchObject({ name: 'ns-config', type: 'Generation', status: 'pass' });
    expect(result?.downstream).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'team-a-config',
          namespace: 'team-a',
          labels: {
            app: 'x',
            'app.kubernetes.io/managed-by': 'kyverno',
            'generate.kyverno.io/policy-name': 'ns-config',
            'generate.kyverno.io/trigger-name': 'team-a',
            'generate.kyverno.io/trigger-namespace': '',
            'generate.kyverno.io/trigger-uid': 'ns-uid',
            'generate.kyverno.io/trigger-kind': 'Namespace',
            'generate.kyverno.io/trigger-group': '',
            'generate.kyverno.io/trigger-version': 'v1',
          },
        },
        data: { owner: 'team-a' },
      },
    ]);
  });

  it('clones a list of sources: each item is an object, its server fields dropped, its source uid recorded', async () => {
    const resources = new FakeResourcePort([
      {
        apiVersion: 'v1',
        resource: 'secrets',
        object: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 's1', namespace: 'default', uid: 'u1', resourceVersion: '7', annotations: { a: 'b' } },
          data: { k: 'dg==' },
        },
      },
    ]);
    const spec: GeneratingPolicySpec = {
      matchConstraints: matching('', 'v1', 'namespaces'),
      generate: [{ expression: 'generator.Apply(object.metadata.name, [resource.List("v1", "secrets", "default")])' }],
    };
    const compiled = compileGeneratingPolicy(generatingPolicy('clone', spec));
    const controller = await evaluateGeneratingPolicy(compiled, inputFor(namespace('prod')), { ports: { resources } });
    const cloned = controller?.downstream[0];
    expect(cloned?.metadata).toMatchObject({ name: 's1', namespace: 'prod', annotations: { a: 'b' } });
    expect(cloned?.metadata.labels?.['generate.kyverno.io/source-uid']).toBe('u1');
    expect(cloned?.metadata.uid).toBeUndefined();
    expect(cloned?.metadata.resourceVersion).toBeUndefined();
    const cli = await evaluateGeneratingPolicy(compiled, inputFor(namespace('prod')), {
      ports: { resources },
      mode: 'cli',
    });
    expect(cli?.downstream).toEqual([
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'prod' }, data: { k: 'dg==' } },
    ]);
  });

  it('passes without generating when a match condition is false, skips on an exception, errors on a failing expression', async () => {
    const compiled = compileGeneratingPolicy(
      generatingPolicy('cond', {
        ...onNamespaces,
        matchConditions: [{ name: 'not-system', expression: '!object.metadata.name.startsWith("kube-")' }],
      }),
    );
    const skipped = await evaluateGeneratingPolicy(compiled, inputFor(namespace('kube-public')), { ports: {} });
    expect(skipped).toMatchObject({ status: 'pass', downstream: [] });

    const exception = compileCelPolicyException({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'PolicyException',
      metadata: { name: 'except-testing', namespace: 'kyverno' },
      spec: {
        policyRefs: [{ name: 'cond', kind: 'GeneratingPolicy' }],
        matchConditions: [{ name: 'testing', expression: 'object.metadata.name == "testing"' }],
      },
    } as unknown as KubeObject);
    const excepted = await evaluateGeneratingPolicy(compiled, inputFor(namespace('testing')), {
      ports: {},
      exceptions: [exception],
    });
    expect(excepted).toMatchObject({
      status: 'skip',
      message: 'policy is skipped due to policy exceptions: kyverno/except-testing',
      downstream: [],
    });

    const failing = compileGeneratingPolicy(
      generatingPolicy('fails', {
        matchConstraints: matching('', 'v1', 'namespaces'),
        generate: [{ expression: 'generator.Apply("a", [resource.Get("v1", "configmaps", "a", "b")])' }],
      }),
    );
    const error = await evaluateGeneratingPolicy(failing, inputFor(namespace('x')), { ports: {} });
    expect(error?.status).toBe('error');
    expect(error?.message).toMatch(/^failed to evaluate policy: .*resource is not available/);
    expect(error?.downstream).toEqual([]);
  });

  it('does not apply to unmatched triggers', async () => {
    const compiled = compileGeneratingPolicy(generatingPolicy('ns-config', onNamespaces));
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a' } } as KubeObject;
    await expect(evaluateGeneratingPolicy(compiled, inputFor(configMap), { ports: {} })).resolves.toBeUndefined();
  });

  it('bounds the objects per trigger', async () => {
    const compiled = compileGeneratingPolicy(
      generatingPolicy('many', {
        matchConstraints: matching('', 'v1', 'namespaces'),
        generate: [
          {
            expression:
              'generator.Apply("a", [1, 2, 3].map(i, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c" + string(i)}}))',
          },
        ],
      }),
    );
    const result = await evaluateGeneratingPolicy(compiled, inputFor(namespace('x')), {
      ports: {},
      limits: { maxObjects: 2 },
    });
    expect(result?.status).toBe('error');
    expect(result?.message).toContain('more than 2 objects generated for one trigger');
  });

  it('confines a NamespacedGeneratingPolicy: triggers and objects in its namespace only, no cluster-scoped objects', async () => {
    const spec: GeneratingPolicySpec = {
      matchConstraints: matching('', 'v1', 'configmaps'),
      generate: [
        {
          expression:
            'generator.Apply([{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "elsewhere"}}])',
        },
      ],
    };
    const compiled = compileGeneratingPolicy(generatingPolicy('local', spec, 'team-a'));
    const inside = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'team-a' } } as KubeObject;
    const outside = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'team-b' } } as KubeObject;
    const result = await evaluateGeneratingPolicy(compiled, inputFor(inside), { ports: {} });
    expect(result?.downstream.map((object) => object.metadata.namespace)).toEqual(['team-a']);
    await expect(evaluateGeneratingPolicy(compiled, inputFor(outside), { ports: {} })).resolves.toBeUndefined();

    const clusterScoped = compileGeneratingPolicy(
      generatingPolicy(
        'cluster-object',
        {
          matchConstraints: matching('', 'v1', 'configmaps'),
          generate: [
            {
              expression:
                'generator.Apply([{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}}])',
            },
          ],
        },
        'team-a',
      ),
    );
    const refused = await evaluateGeneratingPolicy(clusterScoped, inputFor(inside), {
      ports: {},
      isNamespaced: (_apiVersion, kind) => kind !== 'ClusterRole',
    });
    expect(refused?.status).toBe('error');
    expect(refused?.message).toContain('permission denied: cross-scope generation denied');
  });

  it('renders templates, splicing whole-value placeholders and writing embedded ones into strings', async () => {
    const compiled = compileGeneratingPolicy(
      generatingPolicy('template', {
        matchConstraints: matching('', 'v1', 'namespaces'),
        variables: [{ name: 'labels', expression: '{"team": "platform"}' }],
        generate: [
          {
            template: {
              interpolate: 'cel',
              value: [
                'apiVersion: v1',
                'kind: ConfigMap',
                'metadata:',
                '  name: (( object.metadata.name ))-config',
                '  namespace: (( object.metadata.name ))',
                '  labels: (( variables.labels ))',
                'data:',
                '  size: (( string(size(object.metadata.name)) ))',
              ].join('\n'),
            },
          },
        ],
      }),
    );
    const result = await evaluateGeneratingPolicy(compiled, inputFor(namespace('web')), { ports: {}, mode: 'cli' });
    expect(result?.downstream).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'web-config', namespace: 'web', labels: { team: 'platform' } },
        data: { size: '3' },
      },
    ]);
  });
});
