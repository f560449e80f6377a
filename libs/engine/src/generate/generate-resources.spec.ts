import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { generateResources } from './generate-resources';
import { FakeLoader, clusterPolicy, generateRule, kyvernoLabels, namespace, runFor } from '@edict/engine/testing';

describe('generateResources: data', () => {
  it('builds the object from data with variables substituted in the whole block', async () => {
    const rule = generateRule({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      name: 'deny-{{request.object.metadata.name}}',
      namespace: '{{request.object.metadata.name}}',
      synchronize: true,
      data: { spec: { podSelector: { matchLabels: '{{request.object.metadata.labels}}' }, policyTypes: ['Ingress'] } },
    });
    const response = await generateResources(
      runFor(rule, namespace('team-a', { tier: 'gold' })),
      undefined,
      clusterPolicy,
    );
    expect(response).toMatchObject({ name: 'gen', type: 'Generation', status: 'pass', message: '' });
    expect(response?.generatedResources).toEqual([
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'deny-team-a', namespace: 'team-a', labels: kyvernoLabels('team-a') },
        spec: { podSelector: { matchLabels: { tier: 'gold' } }, policyTypes: ['Ingress'] },
      },
    ]);
    expect(response?.generation).toMatchObject({ synchronize: true, sources: [{ type: 'data' }], notGenerated: [] });
    expect(response?.generation?.error).toBeUndefined();
  });

  it('keeps the labels and kind of data, overrides its name, namespace and apiVersion, drops resourceVersion', async () => {
    const rule = generateRule({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'cfg',
      namespace: 'prod',
      data: {
        kind: 'Secret',
        apiVersion: 'v2',
        metadata: {
          name: 'other',
          namespace: 'elsewhere',
          resourceVersion: '12',
          labels: { team: 'a', 'app.kubernetes.io/managed-by': 'helm' },
        },
        data: { key: 'value' },
      },
    });
    const [object] = (await generateResources(runFor(rule, namespace('prod')), undefined, clusterPolicy))!
      .generatedResources!;
    expect(object).toEqual({
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 'cfg', namespace: 'prod', labels: { team: 'a', ...kyvernoLabels('prod') } },
      data: { key: 'value' },
    });
  });

  it('generates a cluster-scoped object without a namespace', async () => {
    const rule = generateRule({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      name: '{{request.object.metadata.name}}-reader',
      data: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
    });
    const [object] = (await generateResources(runFor(rule, namespace('dev')), undefined, clusterPolicy))!
      .generatedResources!;
    expect(object.metadata).not.toHaveProperty('namespace');
    expect(object.metadata.name).toBe('dev-reader');
  });

  it('generates into an empty namespace value as cluster-scoped (variable resolving to "")', async () => {
    const rule = generateRule({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'x',
      namespace: "{{request.object.metadata.namespace || ''}}",
      data: {},
    });
    const [object] = (await generateResources(runFor(rule, namespace('dev')), undefined, clusterPolicy))!
      .generatedResources!;
    expect(object.metadata).toEqual({ name: 'x', labels: kyvernoLabels('dev') });
  });

  it('labels a namespaced Policy and a namespaced trigger from another group', async () => {
    const rule = generateRule({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      name: 'pdb',
      namespace: 'apps',
      data: { spec: {} },
    });
    const trigger: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'apps' },
    };
    const policy = { kind: 'Policy' as const, metadata: { name: 'team-policy', namespace: 'apps' } };
    const [object] = (await generateResources(runFor(rule, trigger), undefined, policy))!.generatedResources!;
    expect(object.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'kyverno',
      'generate.kyverno.io/policy-name': 'team-policy',
      'generate.kyverno.io/policy-namespace': 'apps',
      'generate.kyverno.io/rule-name': 'gen',
      'generate.kyverno.io/trigger-group': 'apps',
      'generate.kyverno.io/trigger-version': 'v1',
      'generate.kyverno.io/trigger-kind': 'Deployment',
      'generate.kyverno.io/trigger-namespace': 'apps',
      'generate.kyverno.io/trigger-uid': '',
    });
  });

  it('does not modify the policy data between runs', async () => {
    const data = { metadata: { labels: { a: 'b' } }, spec: { value: '{{request.object.metadata.name}}' } };
    const rule = generateRule({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'n', data });
    const first = await generateResources(runFor(rule, namespace('one')), undefined, clusterPolicy);
    first!.generatedResources![0].metadata.labels!['mutated'] = 'yes';
    const second = await generateResources(runFor(rule, namespace('two')), undefined, clusterPolicy);
    expect(data).toEqual({ metadata: { labels: { a: 'b' } }, spec: { value: '{{request.object.metadata.name}}' } });
    expect(second!.generatedResources![0]).toMatchObject({ metadata: { labels: { a: 'b' } }, spec: { value: 'two' } });
    expect(second!.generatedResources![0].metadata.labels).not.toHaveProperty('mutated');
  });

  it('generates the bare target (identity and labels) when there is no data, clone or cloneList', async () => {
    for (const data of [undefined, null]) {
      const rule = generateRule({ apiVersion: 'v1', kind: 'ServiceAccount', name: 'sa', namespace: 'n', data });
      const response = await generateResources(runFor(rule, namespace('n')), undefined, clusterPolicy);
      expect(response).toMatchObject({ status: 'pass' });
      expect(response?.generation?.notGenerated).toEqual([]);
      const [object, ...rest] = response!.generatedResources!;
      expect(rest).toEqual([]);
      expect(Object.keys(object!).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(object).toMatchObject({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'sa', namespace: 'n' },
      });
      expect(object!.metadata.labels).toMatchObject({ 'generate.kyverno.io/rule-name': rule.name });
    }
  });

  it('lists data that is not an object as not generated', async () => {
    const rule = generateRule({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'c',
      namespace: 'n',
      data: '{{request.object.metadata.labels.tier}}',
    });
    const response = await generateResources(runFor(rule, namespace('n', { tier: 'gold' })), undefined, clusterPolicy);
    expect(response).toMatchObject({ status: 'pass', generatedResources: [] });
    expect(response?.generation?.notGenerated[0].reason).toBe('generate.data: expected an object, got string');
  });

  it('reports a variable that cannot be resolved as a generation error, the rule still passing', async () => {
    const rule = generateRule({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: '{{request.object.metadata.labels.missing}}',
      namespace: 'n',
      data: {},
    });
    const response = await generateResources(runFor(rule, namespace('n')), undefined, clusterPolicy);
    expect(response).toMatchObject({ status: 'pass', generatedResources: [] });
    expect(response?.generation?.error).toMatch(/^variable substitution failed in generate: /);
    expect(response?.generation?.error).toContain('request.object.metadata.labels.missing');
  });

  it('reports a name that resolves to an empty string or a non-string', async () => {
    const empty = generateRule({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: '{{request.object.metadata.labels.x}}',
      namespace: 'n',
      data: {},
    });
    const emptyResponse = await generateResources(runFor(empty, namespace('n', { x: '' })), undefined, clusterPolicy);
    expect(emptyResponse?.generation?.error).toBe(
      'generate.name: the target name is empty after variable substitution',
    );
    const numeric = generateRule({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: '{{request.object.spec.count}}',
      namespace: 'n',
      data: {},
    });
    const trigger = { ...namespace('n'), spec: { count: 3 } };
    const numericResponse = await generateResources(runFor(numeric, trigger), undefined, clusterPolicy);
    expect(numericResponse?.generation?.error).toBe(
      'generate.name: expected a string after variable substitution, got number',
    );
    expect(numericResponse?.generatedResources).toEqual([]);
  });

  it('returns undefined for a rule without generate and keeps report properties', async () => {
    const plain = { name: 'v', match: {}, validate: {} };
    expect(await generateResources(runFor(plain, namespace('n')), undefined)).toBeUndefined();
    const rule = {
      ...generateRule({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'n', data: {} }),
      reportProperties: { owner: 'x' },
    };
    expect((await generateResources(runFor(rule, namespace('n')), undefined))?.properties).toEqual({ owner: 'x' });
  });

  it('labels with an empty policy name when no policy is given', async () => {
    const rule = generateRule({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'n', data: {} });
    const [object] = (await generateResources(runFor(rule, namespace('n')), undefined))!.generatedResources!;
    expect(object.metadata.labels).toMatchObject({
      'generate.kyverno.io/policy-name': '',
      'generate.kyverno.io/policy-namespace': '',
    });
  });
});

describe('generateResources: controller settings', () => {
  it('carries synchronize, orphanDownstreamOnPolicyDelete, generateExisting and useServerSideApply', async () => {
    const rule = generateRule({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'c',
      namespace: 'n',
      data: {},
      synchronize: true,
      orphanDownstreamOnPolicyDelete: true,
      generateExisting: false,
    });
    const policy = { ...clusterPolicy, spec: { generateExisting: true, useServerSideApply: true } };
    const response = await generateResources(runFor(rule, namespace('n')), undefined, policy);
    expect(response?.generation).toMatchObject({
      synchronize: true,
      orphanDownstreamOnPolicyDelete: true,
      generateExisting: false,
      useServerSideApply: true,
    });
  });

  it('falls back to spec.generateExisting and defaults everything to false', async () => {
    const rule = generateRule({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'n', data: {} });
    const inherited = await generateResources(runFor(rule, namespace('n')), undefined, {
      ...clusterPolicy,
      spec: { generateExisting: true },
    });
    expect(inherited?.generation?.generateExisting).toBe(true);
    const defaults = await generateResources(runFor(rule, namespace('n')), undefined);
    expect(defaults?.generation).toMatchObject({
      synchronize: false,
      orphanDownstreamOnPolicyDelete: false,
      generateExisting: false,
      useServerSideApply: false,
    });
  });
});

describe('generateResources: bad input', () => {
  it('fails a data rule without kind, name or apiVersion, naming each field', async () => {
    const rule = generateRule({ namespace: 'n', data: {} });
    const response = await generateResources(runFor(rule, namespace('n')), undefined, clusterPolicy);
    expect(response).toMatchObject({
      status: 'error',
      type: 'Generation',
      message:
        'invalid generate rule: generate.kind: kind can not be empty; generate.name: name can not be empty; generate.apiVersion: apiVersion can not be empty',
    });
    expect(response?.generatedResources).toBeUndefined();
  });

  it('fails a rule combining data and clone', async () => {
    const rule = generateRule({
      apiVersion: 'v1',
      kind: 'Secret',
      name: 's',
      namespace: 'n',
      data: {},
      clone: { namespace: 'a', name: 'b' },
    });
    const response = await generateResources(runFor(rule, namespace('n')), new FakeLoader([]), clusterPolicy);
    expect(response?.message).toBe(
      'invalid generate rule: generate: only one of generate patterns(data, clone, cloneList and foreach) can be specified',
    );
  });

  it('fails a field of the wrong type instead of crashing', async () => {
    const rule = generateRule({
      apiVersion: 'v1',
      kind: 'Secret',
      name: 42 as unknown as string,
      namespace: 'n',
      data: {},
    });
    const response = await generateResources(runFor(rule, namespace('n')), undefined, clusterPolicy);
    expect(response).toMatchObject({
      status: 'error',
      message: 'invalid generate rule: generate.name: expected a string',
    });
  });
});

describe('generateResources: foreach', () => {
  const trigger = namespace('tenant', undefined, { spec: { envs: ['dev', null, 'prod', 'test'] } });

  it('generates once per element with element and elementIndex, honouring per-element preconditions', async () => {
    const rule = generateRule({
      foreach: [
        {
          list: 'request.object.spec.envs',
          preconditions: { all: [{ key: '{{element}}', operator: 'NotEquals', value: 'test' }] },
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: '{{request.object.metadata.name}}-{{element}}',
          namespace: '{{element}}',
          data: { data: { index: '{{elementIndex}}', env: '{{element}}' } },
        },
      ],
    });
    const response = await generateResources(runFor(rule, trigger), undefined, clusterPolicy);
    expect(response?.status).toBe('pass');
    expect(response?.generatedResources?.map((o) => [o.metadata.namespace, o.metadata.name, o.data])).toEqual([
      ['dev', 'tenant-dev', { index: 0, env: 'dev' }],
      ['prod', 'tenant-prod', { index: 2, env: 'prod' }],
    ]);
    expect(response?.generation?.error).toBeUndefined();
  });

  it('loads the block context per element and leaves the rule context as it was', async () => {
    const rule = generateRule({
      foreach: [
        {
          list: "['a', 'b']",
          context: [{ name: 'upper', variable: { jmesPath: 'to_upper(element)' } }],
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'cm-{{element}}',
          namespace: 'n',
          data: { data: { value: '{{upper}}' } },
        },
      ],
    });
    const run = runFor(rule, trigger);
    const response = await generateResources(run, undefined, clusterPolicy);
    expect(response?.generatedResources?.map((o) => o.data)).toEqual([{ value: 'A' }, { value: 'B' }]);
    expect(run.ctx.document()).not.toHaveProperty('element');
    expect(run.ctx.document()).not.toHaveProperty('upper');
  });

  it('keeps going after a failing list or element and reports the failures', async () => {
    const rule = generateRule({
      foreach: [
        {
          list: 'request.object.spec.missing',
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'x',
          namespace: 'n',
          data: {},
        },
        {
          list: 'request.object.spec.envs',
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'cm-{{element}}',
          namespace: "{{ element == 'prod' && `5` || 'n' }}",
          data: {},
        },
      ],
    });
    const response = await generateResources(runFor(rule, trigger), undefined, clusterPolicy);
    expect(response?.status).toBe('pass');
    expect(response?.generatedResources?.map((o) => o.metadata.name)).toEqual(['cm-dev', 'cm-test']);
    const error = response?.generation?.error ?? '';
    expect(error).toMatch(/^failed to evaluate generate\.foreach\[0\]\.list: /);
    expect(error).toContain(
      'failed to process generate.foreach[1] element 2: generate.foreach[1].namespace: expected a string after variable substitution, got number',
    );
  });

  it('treats a list result that is not an array as one element', async () => {
    const rule = generateRule({
      foreach: [
        {
          list: 'request.object.metadata',
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: '{{element.name}}',
          namespace: 'n',
          data: {},
        },
      ],
    });
    const response = await generateResources(runFor(rule, trigger), undefined, clusterPolicy);
    expect(response?.generatedResources?.map((o) => o.metadata.name)).toEqual(['tenant']);
  });

  it('clones per element', async () => {
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'base' },
      data: { k: 'dg==' },
    };
    const rule = generateRule({
      foreach: [
        {
          list: "['x', 'y']",
          apiVersion: 'v1',
          kind: 'Secret',
          name: 'creds',
          namespace: '{{element}}',
          clone: { namespace: 'base', name: 'creds' },
        },
      ],
    });
    const response = await generateResources(runFor(rule, trigger), new FakeLoader([secret]), clusterPolicy);
    expect(response?.generatedResources?.map((o) => [o.metadata.namespace, o.data])).toEqual([
      ['x', { k: 'dg==' }],
      ['y', { k: 'dg==' }],
    ]);
    expect(response?.generation?.sources).toEqual([
      { type: 'clone', source: { apiVersion: 'v1', kind: 'Secret', namespace: 'base', name: 'creds' } },
      { type: 'clone', source: { apiVersion: 'v1', kind: 'Secret', namespace: 'base', name: 'creds' } },
    ]);
  });

  it('fails a foreach block without a list', async () => {
    const rule = generateRule({
      foreach: [{ list: '', apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'n', data: {} }],
    });
    const response = await generateResources(runFor(rule, trigger), undefined, clusterPolicy);
    expect(response).toMatchObject({
      status: 'error',
      message: 'invalid generate rule: generate.foreach[0].list: list can not be empty',
    });
  });
});
