import { describe, expect, it } from 'vitest';
import { Engine } from '../engine/engine';
import type { ResourceLoader } from '../core/loaders';
import { type JsonObject, type KubeObject, type LabelSelector, matchesLabelSelector } from '@edict/foundation';
import type { TargetResourceSpec } from '../policy/types';

function secret(namespace: string, name: string, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace, ...(labels ? { labels } : {}) } };
}

const trigger: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'trigger', namespace: 'staging' },
};

/** A cluster holding fixed objects; `list` without a namespace spans all of them. */
function cluster(objects: KubeObject[]): ResourceLoader & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    get(apiVersion, kind, namespace, name) {
      calls.push(`get ${kind} ${namespace ?? '-'}/${name}`);
      return objects.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name);
    },
    list(apiVersion, kind, namespace, selector) {
      calls.push(`list ${kind} ${namespace ?? '*'}`);
      return objects.filter(
        (o) =>
          o.kind === kind &&
          (!namespace || o.metadata.namespace === namespace) &&
          matchesLabelSelector((selector ?? {}) as LabelSelector, o.metadata.labels),
      );
    },
    namespaced: () => true,
  };
}

const objects = [
  secret('staging', 'db', { app: 'db' }),
  secret('prod', 'db', { app: 'db' }),
  secret('prod', 'web', { app: 'web' }),
  secret('dev-1', 'db-old'),
];

async function mutateTargets(
  targets: TargetResourceSpec[],
  options: { namespace?: string; extra?: JsonObject; loader?: ResourceLoader; foreachOnly?: boolean } = {},
) {
  const loader = options.loader ?? cluster(objects);
  const engine = new Engine({ resources: loader });
  const compiled = engine.compile({
    apiVersion: 'kyverno.io/v1',
    kind: options.namespace ? 'Policy' : 'ClusterPolicy',
    metadata: { name: 'p', ...(options.namespace ? { namespace: options.namespace } : {}) },
    spec: {
      rules: [
        {
          name: 'label-targets',
          match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
          mutate: {
            targets,
            ...(options.foreachOnly
              ? {}
              : { patchStrategicMerge: { metadata: { labels: { touched: '{{ request.object.metadata.name }}' } } } }),
            ...(options.extra ?? {}),
          },
        },
      ],
    },
  });
  return engine.mutate(compiled, { resource: trigger, operation: 'CREATE' });
}

const patchedNames = (response: Awaited<ReturnType<typeof mutateTargets>>) =>
  response.rules.flatMap((rule) =>
    (rule.patchedTargets ?? []).map((target) => `${target.metadata.namespace}/${target.metadata.name}`),
  );

describe('mutate existing: finding targets', () => {
  it('reads one object when namespace and name are both given', async () => {
    const loader = cluster(objects);
    const response = await mutateTargets([{ apiVersion: 'v1', kind: 'Secret', namespace: 'prod', name: 'db' }], {
      loader,
    });
    expect(loader.calls).toEqual(['get Secret prod/db']);
    expect(patchedNames(response)).toEqual(['prod/db']);
    expect(response.rules[0]).toMatchObject({ status: 'pass', message: 'mutated Secret/db in namespace prod' });
    expect(response.rules[0]?.patchedTargets?.[0]?.metadata.labels).toEqual({ app: 'db', touched: 'trigger' });
  });

  it('patches every namespace’s object of that name when no namespace is given', async () => {
    const response = await mutateTargets([{ apiVersion: 'v1', kind: 'Secret', name: 'db' }]);
    expect(patchedNames(response)).toEqual(['staging/db', 'prod/db']);
  });

  it('matches wildcard names and namespaces', async () => {
    expect(patchedNames(await mutateTargets([{ apiVersion: 'v1', kind: 'Secret', name: 'db*' }]))).toEqual([
      'staging/db',
      'prod/db',
      'dev-1/db-old',
    ]);
    expect(
      patchedNames(await mutateTargets([{ apiVersion: 'v1', kind: 'Secret', namespace: 'dev-?', name: 'db*' }])),
    ).toEqual(['dev-1/db-old']);
  });

  it('selects by labels', async () => {
    const response = await mutateTargets([
      { apiVersion: 'v1', kind: 'Secret', namespace: 'prod', selector: { matchLabels: { app: 'web' } } },
    ]);
    expect(patchedNames(response)).toEqual(['prod/web']);
  });

  it('substitutes variables in the target fields', async () => {
    const response = await mutateTargets([
      { apiVersion: 'v1', kind: 'Secret', namespace: '{{ request.object.metadata.namespace }}', name: 'db' },
    ]);
    expect(patchedNames(response)).toEqual(['staging/db']);
  });

  it('keeps a namespaced policy to its own namespace', async () => {
    const response = await mutateTargets([{ apiVersion: 'v1', kind: 'Secret', namespace: 'prod', name: 'db' }], {
      namespace: 'staging',
    });
    expect(patchedNames(response)).toEqual(['staging/db']);
  });

  it('reports a named target that does not exist as an error, and still patches the others', async () => {
    const response = await mutateTargets([
      { apiVersion: 'v1', kind: 'Secret', namespace: 'prod', name: 'missing' },
      { apiVersion: 'v1', kind: 'Secret', namespace: 'prod', name: 'web' },
    ]);
    expect(response.rules.map((r) => [r.status, r.message])).toEqual([
      ['error', ': secrets "missing" not found'],
      ['pass', 'mutated Secret/web in namespace prod'],
    ]);
  });

  it('reports a target whose variables cannot be resolved', async () => {
    const response = await mutateTargets([{ apiVersion: 'v1', kind: 'Secret', namespace: 'prod', name: '{{ nope }}' }]);
    expect(response.rules).toHaveLength(1);
    expect(response.rules[0]?.status).toBe('error');
    expect(response.rules[0]?.message).toMatch(/^: failed to substitute variables in target\[0\]: /);
  });

  it('gives no response when the wildcard matches nothing', async () => {
    const response = await mutateTargets([{ apiVersion: 'v1', kind: 'Secret', name: 'zzz*' }]);
    expect(response.rules).toEqual([]);
  });

  it('never patches the trigger itself', async () => {
    const response = await mutateTargets([{ apiVersion: 'v1', kind: 'Secret', namespace: 'prod', name: 'db' }]);
    expect(response.patchedResource).toEqual(trigger);
  });
});

describe('mutate existing: per-target context and preconditions', () => {
  it('exposes the target and skips targets whose preconditions fail', async () => {
    const response = await mutateTargets([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        name: 'db',
        preconditions: { all: [{ key: '{{ target.metadata.namespace }}', operator: 'Equals', value: 'prod' }] },
      },
    ]);
    expect(response.rules.map((r) => r.status)).toEqual(['skip', 'pass']);
    expect(response.rules[0]?.message).toMatch(/^preconditions not met/);
    expect(patchedNames(response)).toEqual(['prod/db']);
  });

  it('loads target context entries that can read the target', async () => {
    const response = await mutateTargets(
      [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: 'prod',
          name: 'web',
          context: [{ name: 'where', variable: { jmesPath: 'target.metadata.namespace' } }],
        },
      ],
      { extra: { patchStrategicMerge: { metadata: { labels: { from: '{{ where }}' } } } } },
    );
    expect(response.rules[0]?.patchedTargets?.[0]?.metadata.labels).toEqual({ app: 'web', from: 'prod' });
  });

  it('patches targets with foreach loops that read the target', async () => {
    const response = await mutateTargets([{ apiVersion: 'v1', kind: 'Secret', namespace: 'prod', name: 'web' }], {
      foreachOnly: true,
      extra: {
        foreach: [
          {
            list: "['x', 'y']",
            patchStrategicMerge: { metadata: { labels: { '{{ element }}': '{{ target.metadata.name }}' } } },
          },
        ],
      },
    });
    expect(response.rules[0]?.status).toBe('pass');
    expect(response.rules[0]?.patchedTargets?.[0]?.metadata.labels).toEqual({ app: 'web', x: 'web', y: 'web' });
  });

  it('skips a target the patch leaves unchanged', async () => {
    const response = await mutateTargets([{ apiVersion: 'v1', kind: 'Secret', namespace: 'prod', name: 'web' }], {
      extra: { patchStrategicMerge: { metadata: { labels: { app: 'web' } } } },
    });
    expect(response.rules.map((r) => [r.status, r.message])).toEqual([['skip', 'no patches applied']]);
    expect(response.rules[0]?.patchedTargets).toBeUndefined();
  });
});
