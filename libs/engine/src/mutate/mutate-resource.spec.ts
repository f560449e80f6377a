import { describe, expect, it } from 'vitest';
import { Engine } from '../engine/engine';
import type { JsonObject, KubeObject } from '@edict/foundation';
import type { Rule } from '../policy/types';

/** Runs the mutate rules of one ClusterPolicy against a ConfigMap on CREATE. */
async function mutate(rules: Rule[], resource: KubeObject = configMap()) {
  const engine = new Engine();
  const compiled = engine.compile({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p' },
    spec: { rules },
  });
  return engine.mutate(compiled, { resource, operation: 'CREATE' });
}

function configMap(
  data: Record<string, string> = { a: '1', b: '2', c: '3' },
  labels?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'team', ...(labels ? { labels } : {}) },
    data,
  };
}

function rule(name: string, mutate: JsonObject, extra: Partial<Rule> = {}): Rule {
  return {
    name,
    match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
    mutate: mutate as Rule['mutate'],
    ...extra,
  };
}

const summary = (response: Awaited<ReturnType<typeof mutate>>) =>
  response.rules.map((r) => [r.name, r.status, r.message]);

describe('mutate: patches', () => {
  it('applies a strategic merge patch with variables and reports the mutated object', async () => {
    const response = await mutate([
      rule('label', {
        patchStrategicMerge: { metadata: { labels: { owner: '{{request.object.metadata.namespace}}' } } },
      }),
    ]);
    expect(summary(response)).toEqual([['label', 'pass', 'mutated ConfigMap/cm in namespace team']]);
    expect(response.patchedResource?.metadata.labels).toEqual({ owner: 'team' });
    expect(response.rules[0]?.patchedResource).toEqual(response.patchedResource);
  });

  it('skips a patch that changes nothing ("no patches applied")', async () => {
    const response = await mutate(
      [rule('noop', { patchStrategicMerge: { metadata: { labels: { '+(owner)': 'x' } } } })],
      configMap(undefined, { owner: 'y' }),
    );
    expect(summary(response)).toEqual([['noop', 'skip', 'no patches applied']]);
    expect(response.patchedResource?.metadata.labels).toEqual({ owner: 'y' });
  });

  it('reports a JSON patch that cannot apply as an error and keeps the resource', async () => {
    const response = await mutate([
      rule('bad', { patchesJson6902: '- op: replace\n  path: /spec/missing\n  value: 1' }),
    ]);
    expect(response.rules[0]?.status).toBe('error');
    expect(response.rules[0]?.message).toMatch(/^failed to patch resource: /);
    expect(response.patchedResource).toEqual(configMap());
  });

  it('lets later rules read the patched object in preconditions and variables', async () => {
    const response = await mutate([
      rule('first', { patchStrategicMerge: { metadata: { labels: { stage: 'one' } } } }),
      rule(
        'second',
        { patchStrategicMerge: { metadata: { annotations: { seen: '{{request.object.metadata.labels.stage}}' } } } },
        {
          preconditions: {
            all: [{ key: "{{request.object.metadata.labels.stage || ''}}", operator: 'Equals', value: 'one' }],
          },
        },
      ),
    ]);
    expect(summary(response).map(([name, status]) => [name, status])).toEqual([
      ['first', 'pass'],
      ['second', 'pass'],
    ]);
    expect(response.patchedResource?.metadata.annotations).toEqual({ seen: 'one' });
  });

  it('does not leak a rule context entry into the next rule', async () => {
    const response = await mutate([
      rule(
        'first',
        { patchStrategicMerge: { metadata: { labels: { x: '{{ value }}' } } } },
        { context: [{ name: 'value', variable: { value: 'v1' } }] },
      ),
      rule('second', { patchStrategicMerge: { metadata: { labels: { y: '{{ value }}' } } } }),
    ]);
    expect(response.rules[0]?.status).toBe('pass');
    expect(response.rules[1]?.status).toBe('error');
  });

  it('skips with the preconditions message and leaves the object alone', async () => {
    const response = await mutate([
      rule(
        'never',
        { patchStrategicMerge: { metadata: { labels: { x: 'y' } } } },
        { preconditions: { all: [{ key: '{{ request.operation }}', operator: 'Equals', value: 'DELETE' }] } },
      ),
    ]);
    expect(response.rules[0]?.status).toBe('skip');
    expect(response.rules[0]?.message).toMatch(/^preconditions not met/);
    expect(response.patchedResource).toEqual(configMap());
  });
});

describe('mutate: foreach', () => {
  /** A loop that appends each element's key to an annotation, showing the visiting order. */
  const recordOrder = (order?: 'Ascending' | 'Descending'): JsonObject => ({
    list: 'request.object.data | keys(@)',
    ...(order ? { order } : {}),
    patchesJson6902:
      '- op: add\n  path: /metadata/annotations/order\n  value: "{{ request.object.metadata.annotations.order || \'\' }}{{ element }}"',
  });

  it('visits elements in list order for JSON patches by default', async () => {
    const response = await mutate([rule('order', { foreach: [recordOrder()] })], {
      ...configMap(),
      metadata: { name: 'cm', namespace: 'team', annotations: { order: '' } },
    });
    // request.object is not refreshed between elements of one loop, so each element overwrites.
    expect(response.patchedResource?.metadata.annotations?.['order']).toBe('c');
  });

  it('visits elements backwards with order: Descending', async () => {
    const response = await mutate([rule('order', { foreach: [recordOrder('Descending')] })], {
      ...configMap(),
      metadata: { name: 'cm', namespace: 'team', annotations: { order: '' } },
    });
    expect(response.patchedResource?.metadata.annotations?.['order']).toBe('a');
  });

  it('exposes elementIndex as the original position when walking backwards', async () => {
    const response = await mutate([
      rule('index', {
        foreach: [
          {
            list: 'request.object.data | keys(@)',
            order: 'Descending',
            patchStrategicMerge: { metadata: { labels: { 'idx-{{ element }}': '{{ elementIndex }}' } } },
          },
        ],
      }),
    ]);
    // A value that is only a variable keeps the variable's type.
    expect(response.patchedResource?.metadata.labels).toEqual({ 'idx-a': 0, 'idx-b': 1, 'idx-c': 2 });
  });

  it('walks strategic merge patches backwards by default so list insertions keep their order', async () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'team' },
      spec: {
        containers: [
          { name: 'one', image: 'a' },
          { name: 'two', image: 'b' },
        ],
      },
    };
    const engine = new Engine();
    const compiled = engine.compile({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'p', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
      spec: {
        rules: [
          {
            name: 'sidecars',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            mutate: {
              foreach: [
                {
                  list: 'request.object.spec.containers',
                  patchStrategicMerge: { spec: { initContainers: [{ name: 'init-{{ element.name }}', image: 'x' }] } },
                },
              ],
            },
          },
        ],
      },
    });
    const response = await engine.mutate(compiled, { resource: pod, operation: 'CREATE' });
    const names = (response.patchedResource?.spec as { initContainers: { name: string }[] }).initContainers.map(
      (c) => c.name,
    );
    expect(names).toEqual(['init-one', 'init-two']);
  });

  it('applies per-element preconditions', async () => {
    const response = await mutate([
      rule('some', {
        foreach: [
          {
            list: 'request.object.data | keys(@)',
            preconditions: { any: [{ key: '{{ element }}', operator: 'NotEquals', value: 'b' }] },
            patchStrategicMerge: { metadata: { labels: { '{{ element }}': 'seen' } } },
          },
        ],
      }),
    ]);
    expect(response.patchedResource?.metadata.labels).toEqual({ a: 'seen', c: 'seen' });
  });

  it('skips a loop whose elements change nothing, and a rule none of whose loops did', async () => {
    const response = await mutate(
      [
        rule('defaults', {
          foreach: [
            {
              list: 'request.object.data | keys(@)',
              patchStrategicMerge: { metadata: { labels: { '+({{ element }})': 'default' } } },
            },
          ],
        }),
      ],
      configMap({ a: '1' }, { a: 'set' }),
    );
    expect(summary(response)).toEqual([['defaults', 'skip', '0 elements processed']]);
  });

  it('skips a loop over an empty list', async () => {
    const response = await mutate([
      rule('empty', {
        foreach: [
          { list: 'request.object.metadata.labels || `[]`', patchStrategicMerge: { metadata: { labels: { x: 'y' } } } },
        ],
      }),
    ]);
    expect(response.rules[0]?.status).toBe('skip');
  });

  it('lets a later loop read what an earlier loop patched', async () => {
    const response = await mutate([
      rule('two-loops', {
        foreach: [
          { list: "['x']", patchStrategicMerge: { metadata: { labels: { first: '{{ element }}' } } } },
          {
            list: "['y']",
            patchStrategicMerge: {
              metadata: { labels: { second: '{{ request.object.metadata.labels.first }}-{{ element }}' } },
            },
          },
        ],
      }),
    ]);
    expect(response.patchedResource?.metadata.labels).toEqual({ first: 'x', second: 'x-y' });
  });

  it('runs nested loops with element0/element1', async () => {
    const resource: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: 'team' },
      data: {},
    };
    const response = await mutate(
      [
        rule('nested', {
          foreach: [
            {
              list: "['a', 'b']",
              foreach: [
                {
                  list: "['1', '2']",
                  patchStrategicMerge: {
                    data: { '{{ element0 }}{{ element1 }}': '{{ elementIndex0 }}{{ elementIndex1 }}' },
                  },
                },
              ],
            },
          ],
        }),
      ],
      resource,
    );
    expect(response.rules[0]?.status).toBe('pass');
    expect(response.patchedResource?.data).toEqual({ a1: '00', a2: '01', b1: '10', b2: '11' });
  });

  it('wraps an element error with the loop that failed', async () => {
    const response = await mutate([
      rule('broken', {
        foreach: [{ list: "['a']", patchesJson6902: '- op: replace\n  path: /spec/nothing\n  value: 1' }],
      }),
    ]);
    expect(response.rules[0]?.status).toBe('error');
    expect(response.rules[0]?.message).toMatch(/^failed to mutate elements: failed to patch resource: /);
  });

  it('reports a list that does not evaluate as an error', async () => {
    const response = await mutate([
      rule('bad-list', { foreach: [{ list: 'request.object.data.[', patchStrategicMerge: { metadata: {} } }] }),
    ]);
    expect(response.rules[0]?.status).toBe('error');
    expect(response.rules[0]?.message).toMatch(/^failed to evaluate list request\.object\.data\.\[/);
  });
});
