import { describe, expect, it } from 'vitest';
import { Engine } from '../engine/engine';
import type { ResourceLoader } from './loaders';
import type { JsonObject, KubeObject } from '@edict/foundation';
import type { Rule } from '../policy/types';

/** Kinds a fake discovery serves: ConfigMap, Secret and kyverno.io Policy namespaced, the rest cluster-scoped. */
const NAMESPACED = new Set(['ConfigMap', 'Secret', 'NetworkPolicy', 'Policy']);
const SERVED = new Set([...NAMESPACED, 'ClusterPolicy', 'Namespace', 'ClusterRole']);

function cluster(objects: KubeObject[]): ResourceLoader & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    get(_apiVersion, kind, namespace, name) {
      calls.push(`get ${kind} ${namespace ?? '-'}/${name}`);
      return objects.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name);
    },
    list(_apiVersion, kind, namespace) {
      calls.push(`list ${kind} ${namespace ?? '*'}`);
      return objects.filter((o) => o.kind === kind && (!namespace || o.metadata.namespace === namespace));
    },
    namespaced: (_apiVersion, kind) => (SERVED.has(kind) ? NAMESPACED.has(kind) : undefined),
  };
}

const requireTeamLabel: KubeObject = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'require-team-label' },
  spec: { validationFailureAction: 'Enforce' },
};
const otherSecret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'team-b' } };
const ownSecret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'team-a' } };

function trigger(data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'trigger', namespace: 'team-a', uid: 't-1' }, data };
}

function policy(rule: Omit<Rule, 'match' | 'name'>, namespace: string | undefined = 'team-a'): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: namespace ? 'Policy' : 'ClusterPolicy',
    metadata: { name: 'escape', ...(namespace ? { namespace } : {}) },
    spec: { rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['ConfigMap'] } }] }, ...rule }] },
  } as unknown as JsonObject;
}

async function generate(rule: Omit<Rule, 'match' | 'name'>, data?: Record<string, string>, namespace?: string) {
  const loader = cluster([requireTeamLabel, otherSecret, ownSecret]);
  const engine = new Engine({ resources: loader });
  const response = await engine.generate(engine.compile(policy(rule, namespace) as never), {
    resource: trigger(data),
    operation: 'CREATE',
  });
  return { rule: response.rules[0]!, calls: loader.calls };
}

describe('a namespaced Policy at run time (after variables are substituted)', () => {
  it('cannot mutate a cluster-scoped target: the rule errors and no target is read', async () => {
    const loader = cluster([requireTeamLabel]);
    const engine = new Engine({ resources: loader });
    const compiled = engine.compile(
      policy({
        mutate: {
          targets: [{ apiVersion: 'kyverno.io/v1', kind: '{{request.object.data.k}}', name: 'require-team-label' }],
          patchStrategicMerge: { spec: { validationFailureAction: 'Audit', admission: false } },
        },
      }) as never,
    );
    const response = await engine.mutate(compiled, { resource: trigger({ k: 'ClusterPolicy' }), operation: 'CREATE' });
    expect(response.rules).toHaveLength(1);
    expect(response.rules[0]).toMatchObject({ name: 'r', status: 'error' });
    expect(response.rules[0]!.message).toContain(
      'mutate.targets[0]: a Policy in namespace "team-a" may only reach namespaced kinds, and kyverno.io/v1/ClusterPolicy is cluster-scoped',
    );
    expect(response.rules[0]!.patchedTargets).toBeUndefined();
    expect(loader.calls).toEqual([]);
  });

  it('generates a variable kind only when it is namespaced: ClusterPolicy, Namespace and ClusterRole are errors', async () => {
    const rule = {
      generate: {
        apiVersion: '{{request.object.data.av}}',
        kind: '{{request.object.data.k}}',
        name: 'made',
        namespace: 'team-a',
        data: { spec: {} },
      },
    };
    for (const [av, k] of [
      ['kyverno.io/v1', 'ClusterPolicy'],
      ['v1', 'Namespace'],
      ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
    ]) {
      const { rule: result } = await generate(rule, { av: av!, k: k! });
      expect(result.status).toBe('error');
      expect(result.message).toContain(`${av}/${k} is cluster-scoped`);
      expect((result as { generatedResources?: unknown }).generatedResources).toBeUndefined();
    }
    const { rule: ok } = await generate(rule, { av: 'v1', k: 'ConfigMap' });
    expect(ok.status).toBe('pass');
    expect((ok as { generatedResources?: KubeObject[] }).generatedResources?.[0]).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'made', namespace: 'team-a' },
    });
  });

  it('refuses a data block whose own kind is cluster-scoped, though the rule names a namespaced kind', async () => {
    const { rule } = await generate(
      {
        generate: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'made',
          namespace: 'team-a',
          data: { kind: '{{request.object.data.k}}', rules: [] },
        },
      },
      { k: 'ClusterRole' },
    );
    expect(rule.status).toBe('error');
    expect(rule.message).toContain('generated v1/ClusterRole "made"');
  });

  it('refuses a target namespace or a clone source outside its namespace before reading anything', async () => {
    const target = await generate(
      {
        generate: { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: '{{request.object.data.ns}}', data: {} },
      },
      { ns: 'kube-system' },
    );
    expect(target.rule.status).toBe('error');
    expect(target.rule.message).toContain(
      'generate.namespace: a Policy in namespace "team-a" may only reach its own namespace, not namespace "kube-system"',
    );

    const clone = await generate(
      {
        generate: {
          apiVersion: 'v1',
          kind: 'Secret',
          name: 'stolen',
          namespace: 'team-a',
          clone: { namespace: '{{request.object.data.ns}}', name: 'db' },
        },
      },
      { ns: 'team-b' },
    );
    expect(clone.rule.status).toBe('error');
    expect(clone.rule.message).toContain('generate.clone.namespace');
    expect(clone.calls).toEqual([]);

    const cloneList = await generate(
      {
        generate: { namespace: 'team-a', cloneList: { namespace: '{{request.object.data.ns}}', kinds: ['v1/Secret'] } },
      },
      { ns: 'team-b' },
    );
    expect(cloneList.rule.status).toBe('error');
    expect(cloneList.rule.message).toContain('generate.cloneList.namespace');
    expect(cloneList.calls).toEqual([]);
  });

  it('still clones within its own namespace, and a ClusterPolicy is not restricted', async () => {
    const own = await generate({
      generate: {
        apiVersion: 'v1',
        kind: 'Secret',
        name: 'copy',
        namespace: 'team-a',
        clone: { namespace: 'team-a', name: 'db' },
      },
    });
    expect(own.rule.status).toBe('pass');
    expect(own.calls).toEqual(['get Secret team-a/db']);

    const clusterWide = await generate(
      { generate: { apiVersion: 'v1', kind: 'Namespace', name: 'made', data: {} } },
      undefined,
      '',
    );
    expect(clusterWide.rule.status).toBe('pass');
  });
});
