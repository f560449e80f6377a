import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { generateResources } from './generate-resources';
import { FakeLoader, clusterPolicy, generateRule, kyvernoLabels, namespace, runFor } from '@edict/engine/testing';

const sourceLabels = (namespace: string, name: string, kind = 'Secret') => ({
  'generate.kyverno.io/clone-source': '',
  'generate.kyverno.io/source-group': '',
  'generate.kyverno.io/source-version': 'v1',
  'generate.kyverno.io/source-kind': kind,
  'generate.kyverno.io/source-namespace': namespace,
  'generate.kyverno.io/source-name': name,
});

const regcred: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'regcred',
    namespace: 'default',
    uid: 'u-1',
    resourceVersion: '99',
    creationTimestamp: '2024-01-01T00:00:00Z',
    selfLink: '/api/v1/namespaces/default/secrets/regcred',
    managedFields: [{ manager: 'kubectl' }],
    ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'o-1' }],
    annotations: { note: 'kept' },
    labels: { team: 'a' },
  },
  type: 'kubernetes.io/dockerconfigjson',
  data: { '.dockerconfigjson': 'e30=' },
  status: { kept: true },
};

const cloneRule = (namespace = '{{request.object.metadata.name}}', name = 'regcred') =>
  generateRule({
    apiVersion: 'v1',
    kind: 'Secret',
    name,
    namespace,
    synchronize: true,
    clone: { namespace: 'default', name: 'regcred' },
  });

describe('generateResources: clone', () => {
  it('copies the source into the target, without the fields the API server owns', async () => {
    const loader = new FakeLoader([regcred]);
    const response = await generateResources(runFor(cloneRule(), namespace('team-a')), loader, clusterPolicy);
    expect(loader.calls).toEqual(['get v1 Secret default regcred']);
    expect(response?.status).toBe('pass');
    expect(response?.generatedResources).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'regcred',
          namespace: 'team-a',
          annotations: { note: 'kept' },
          labels: { team: 'a', ...sourceLabels('default', 'regcred'), ...kyvernoLabels('team-a') },
        },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': 'e30=' },
        status: { kept: true },
      },
    ]);
    expect(response?.generation?.sources).toEqual([
      { type: 'clone', source: { apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: 'regcred' } },
    ]);
    // The loader's object is left alone.
    expect(regcred.metadata.uid).toBe('u-1');
    expect(regcred.metadata.labels).toEqual({ team: 'a' });
  });

  it('keeps ownerReferences when the copy stays in the source namespace', async () => {
    const response = await generateResources(
      runFor(cloneRule('default', 'regcred-copy'), namespace('x')),
      new FakeLoader([regcred]),
      clusterPolicy,
    );
    const [copy] = response!.generatedResources!;
    expect(copy.metadata).toMatchObject({
      name: 'regcred-copy',
      namespace: 'default',
      ownerReferences: regcred.metadata.ownerReferences,
    });
  });

  it('generates nothing when the source does not exist, and says so', async () => {
    const response = await generateResources(
      runFor(cloneRule(), namespace('team-a')),
      new FakeLoader([]),
      clusterPolicy,
    );
    expect(response).toMatchObject({ status: 'pass', message: '', generatedResources: [] });
    expect(response?.generation?.notGenerated).toEqual([
      {
        target: { apiVersion: 'v1', kind: 'Secret', namespace: 'team-a', name: 'regcred' },
        reason: 'source resource v1/Secret default/regcred not found',
        failed: true,
      },
    ]);
    expect(response?.generation?.error).toBeUndefined();
  });

  it('treats a missing loader like a missing source', async () => {
    const response = await generateResources(runFor(cloneRule(), namespace('team-a')), undefined, clusterPolicy);
    expect(response?.generatedResources).toEqual([]);
    expect(response?.generation?.notGenerated[0].reason).toBe('source resource v1/Secret default/regcred not found');
  });

  it('reports a loader failure as not generated', async () => {
    const response = await generateResources(
      runFor(cloneRule(), namespace('team-a')),
      new FakeLoader([], { fail: 'forbidden' }),
      clusterPolicy,
    );
    expect(response?.generation?.notGenerated[0].reason).toBe(
      'failed to get the clone source v1/Secret default/regcred: forbidden',
    );
  });

  it('skips cloning a source onto itself', async () => {
    const loader = new FakeLoader([regcred]);
    const response = await generateResources(runFor(cloneRule('default'), namespace('x')), loader, clusterPolicy);
    expect(response?.generatedResources).toEqual([]);
    expect(loader.calls).toEqual([]);
    expect(response?.generation?.notGenerated[0].reason).toBe('the clone source is the target itself');
  });

  it('clones the trigger itself when no loader knows it', async () => {
    const trigger: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'base' },
      data: { a: '1' },
    };
    const rule = generateRule({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'settings',
      namespace: 'mirror',
      clone: { namespace: 'base', name: 'settings' },
    });
    const response = await generateResources(runFor(rule, trigger), new FakeLoader([]), clusterPolicy);
    expect(response?.generatedResources?.[0]).toMatchObject({
      metadata: { name: 'settings', namespace: 'mirror' },
      data: { a: '1' },
    });
  });

  it('clones a cluster-scoped source to a cluster-scoped target', async () => {
    const role: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'base' },
      rules: [],
    };
    const rule = generateRule({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      name: '{{request.object.metadata.name}}-role',
      clone: { name: 'base' },
    });
    const loader = new FakeLoader([role]);
    const response = await generateResources(runFor(rule, namespace('ns1')), loader, clusterPolicy);
    expect(loader.calls).toEqual(['get rbac.authorization.k8s.io/v1 ClusterRole - base']);
    const [copy] = response!.generatedResources!;
    expect(copy.metadata.name).toBe('ns1-role');
    expect(copy.metadata).not.toHaveProperty('namespace');
    expect(copy.metadata.labels).toMatchObject({
      'generate.kyverno.io/source-group': 'rbac.authorization.k8s.io',
      'generate.kyverno.io/source-namespace': '',
      'generate.kyverno.io/source-name': 'base',
    });
  });
});

describe('generateResources: cloneList', () => {
  const objects: KubeObject[] = [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'one', namespace: 'default', labels: { share: 'yes' } },
      data: { a: 'MQ==' },
    },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'two', namespace: 'default' }, data: { b: 'Mg==' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'three', namespace: 'other', labels: { share: 'yes' } } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: 'default', labels: { share: 'yes' } },
      data: { c: '3' },
    },
  ];
  const rule = (selector?: object, kinds = ['v1/Secret', 'v1/ConfigMap']) =>
    generateRule({
      namespace: '{{request.object.metadata.name}}',
      synchronize: true,
      cloneList: { namespace: 'default', kinds, ...(selector ? { selector } : {}) },
    });

  it('copies every selected object of each kind into the target namespace, named as its source', async () => {
    const loader = new FakeLoader(objects);
    const response = await generateResources(
      runFor(rule({ matchLabels: { share: 'yes' } }), namespace('team')),
      loader,
      clusterPolicy,
    );
    expect(loader.calls).toEqual([
      'list v1 Secret default {"matchLabels":{"share":"yes"}}',
      'list v1 ConfigMap default {"matchLabels":{"share":"yes"}}',
    ]);
    expect(response?.generatedResources).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'one',
          namespace: 'team',
          labels: { share: 'yes', ...sourceLabels('default', 'one'), ...kyvernoLabels('team') },
        },
        data: { a: 'MQ==' },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'cm',
          namespace: 'team',
          labels: { share: 'yes', ...sourceLabels('default', 'cm', 'ConfigMap'), ...kyvernoLabels('team') },
        },
        data: { c: '3' },
      },
    ]);
  });

  it('takes every object of the kinds without a selector, and applies the selector even if the loader does not', async () => {
    const all = await generateResources(
      runFor(rule(undefined, ['Secret']), namespace('team')),
      new FakeLoader(objects),
      clusterPolicy,
    );
    expect(all?.generatedResources?.map((o) => o.metadata.name)).toEqual(['one', 'two']);
    const loose = new FakeLoader(objects, { ignoreSelector: true });
    const selected = await generateResources(
      runFor(rule({ matchExpressions: [{ key: 'share', operator: 'Exists' }] }, ['v1/Secret']), namespace('team')),
      loose,
      clusterPolicy,
    );
    expect(selected?.generatedResources?.map((o) => o.metadata.name)).toEqual(['one']);
  });

  it('skips sources already in the target namespace', async () => {
    const response = await generateResources(
      runFor(rule(undefined, ['v1/Secret']), namespace('default')),
      new FakeLoader(objects),
      clusterPolicy,
    );
    expect(response?.generatedResources).toEqual([]);
    expect(response?.generation?.notGenerated.map((n) => n.reason)).toEqual([
      'the clone source is in the target namespace',
      'the clone source is in the target namespace',
    ]);
  });

  it('generates nothing from kinds that have no objects', async () => {
    const response = await generateResources(
      runFor(rule(undefined, ['apps/v1/Deployment']), namespace('team')),
      new FakeLoader(objects),
      clusterPolicy,
    );
    expect(response).toMatchObject({ status: 'pass', generatedResources: [] });
  });

  it('stops at a list failure, as Kyverno does', async () => {
    const response = await generateResources(
      runFor(rule(), namespace('team')),
      new FakeLoader(objects, { fail: 'no list' }),
      clusterPolicy,
    );
    expect(response?.generatedResources).toEqual([]);
    expect(response?.generation?.notGenerated).toEqual([
      {
        target: { apiVersion: 'v1', kind: 'Secret', namespace: 'team', name: '' },
        reason: 'failed to list source resource for cloneList v1/Secret in default: no list',
        failed: true,
      },
    ]);
  });

  it('resolves variables in the cloneList source per trigger', async () => {
    const fromTrigger = generateRule({
      namespace: 'copy',
      cloneList: { namespace: '{{request.object.metadata.name}}', kinds: ['v1/Secret'] },
    });
    const loader = new FakeLoader(objects);
    const response = await generateResources(runFor(fromTrigger, namespace('other')), loader, clusterPolicy);
    expect(loader.calls).toEqual(['list v1 Secret other null']);
    expect(response?.generatedResources?.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'copy/three',
    ]);
  });
});

describe('generateResources: foreach context failures', () => {
  it('reports an element that reads a context entry which cannot load', async () => {
    const rule = generateRule({
      foreach: [
        {
          list: "['a']",
          context: [{ name: 'bad', variable: { jmesPath: 'request.object.nothing.deeper' } }],
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: '{{ bad }}',
          namespace: 'n',
          data: {},
        },
      ],
    });
    const response = await generateResources(runFor(rule, namespace('n')), undefined, clusterPolicy);
    expect(response?.generation?.error ?? '').toMatch(
      /^failed to process generate\.foreach\[0\] element 0: variable substitution failed .*Unknown key "bad"/,
    );
  });
});
