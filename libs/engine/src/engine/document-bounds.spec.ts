import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EVALUATION_LIMITS,
  EvaluationDeadlineExceeded,
  type EvaluationDeadline,
  type JsonObject,
  type KubeObject,
} from '@edict/foundation';
import type { Policy, Rule } from '../policy/types';
import type { ResourceRequest } from '../core/types';
import { Engine, type EngineDependencies } from './engine';

const configMapMatch: Rule['match'] = { any: [{ resources: { kinds: ['ConfigMap'] } }] };

function configMap(data: JsonObject = { a: 'x'.repeat(1000) }): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'victim', namespace: 'team-a' }, data };
}

/** A tenant's namespaced Policy, as alice of the issue can create it. */
function tenantPolicy(rules: Rule[]): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'Policy',
    metadata: { name: 'grow', namespace: 'team-a' },
    spec: { rules },
  };
}

const create = (resource: KubeObject): ResourceRequest => ({ operation: 'CREATE', resource });

/** The attack of issue 32: each operation copies /data into itself, doubling the document. */
export function copyChainRule(copies = 40): Rule {
  const operations = Array.from({ length: copies }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/x${i + 1}` }));
  return { name: 'double', match: configMapMatch, mutate: { patchesJson6902: JSON.stringify(operations) } };
}

const labelRule: Rule = {
  name: 'label',
  match: configMapMatch,
  mutate: { patchStrategicMerge: { metadata: { labels: { tenant: 'team-a' } } } },
};

async function mutate(
  rules: Rule[],
  resource: KubeObject = configMap(),
  deps: EngineDependencies = {},
  deadline?: EvaluationDeadline,
) {
  const engine = new Engine(deps);
  return engine.mutate(engine.compile(tenantPolicy(rules)), create(resource), { deadline });
}

function expiresAfter(answers: number): EvaluationDeadline & { asked: number } {
  return {
    asked: 0,
    expired() {
      return ++this.asked > answers;
    },
  };
}

describe('documents a mutate rule builds are bounded', () => {
  it('ends the copy chain of issue 32 in a rule error naming the policy, the rule and the operation', async () => {
    // Unbounded, the 40th copy asks for 1 KB * 2^40: a heap out-of-memory abort.
    const started = performance.now();
    const response = await mutate([copyChainRule(), labelRule]);
    const elapsed = performance.now() - started;
    expect(response.policy).toMatchObject({ name: 'grow', namespace: 'team-a' });
    expect(response.rules[0]).toMatchObject({ name: 'double', status: 'error' });
    expect(response.rules[0]!.message).toMatch(
      /^the resource after JSON-patch operation 1\d \(copy \/data\/x1\d\) exceeds the 3 MiB document size limit$/,
    );
    // The next rule still runs, on the resource as it was.
    expect(response.rules[1]).toMatchObject({ name: 'label', status: 'pass' });
    expect(response.patchedResource?.metadata?.labels).toEqual({ tenant: 'team-a' });
    expect(Object.keys(response.patchedResource?.data as JsonObject)).toEqual(['a']);
    // Generous: the chain stops after a few MiB of copying.
    expect(elapsed).toBeLessThan(5_000);
  });

  it('admits a patch that stays within the limit, replacing large values near it', async () => {
    const limits = { maxDocumentSize: 64 * 1024 };
    // Three copies of 20 KiB fill the document to 61 KiB; copying over an existing key replaces it.
    const operations = [
      { op: 'add', path: '/data/b', value: 'y'.repeat(20 * 1024) },
      { op: 'copy', from: '/data/b', path: '/data/c' },
      { op: 'copy', from: '/data/b', path: '/data/d' },
      { op: 'copy', from: '/data/c', path: '/data/b' },
      { op: 'copy', from: '/data/d', path: '/data/c' },
      { op: 'remove', path: '/data/b' },
      { op: 'copy', from: '/data/c', path: '/data/e' },
    ];
    const patch = (extra: object[]) => JSON.stringify([...operations, ...extra]);
    const rule = (extra: object[]): Rule => ({
      name: 'swap',
      match: configMapMatch,
      mutate: { patchesJson6902: patch(extra) },
    });
    const response = await mutate([rule([])], configMap(), { limits });
    expect(response.rules[0]).toMatchObject({ status: 'pass' });
    expect(Object.keys(response.patchedResource?.data as JsonObject)).toEqual(['a', 'c', 'd', 'e']);
    const over = await mutate([rule([{ op: 'copy', from: '/data/c', path: '/data/f' }])], configMap(), { limits });
    expect(over.rules[0]!.message).toBe(
      'the resource after JSON-patch operation 7 (copy /data/f) exceeds the 64 KiB document size limit',
    );
  });

  it('refuses an index that would create a huge array before creating it', async () => {
    const operations = [{ op: 'add', path: '/data/list/100000000/x', value: 1 }];
    const rule: Rule = {
      name: 'sparse',
      match: configMapMatch,
      mutate: { patchesJson6902: JSON.stringify(operations) },
    };
    const response = await mutate([rule]);
    expect(response.rules[0]).toMatchObject({ status: 'error' });
    expect(response.rules[0]!.message).toContain('exceeds the 3 MiB document size limit');
  });

  it('leaves no resource past the limit, even one that came in past it', async () => {
    const response = await mutate([labelRule], configMap({ a: 'x'.repeat(80 * 1024) }), {
      limits: { maxDocumentSize: 64 * 1024 },
    });
    expect(response.rules[0]).toMatchObject({ status: 'error' });
    expect(response.rules[0]!.message).toBe(
      'the resource after the strategic merge exceeds the 64 KiB document size limit',
    );
  });

  it('bounds a strategic merge patch built from one variable many times, before copying it', async () => {
    // 40 references to a 1 MiB string share it; a copy of the patch would hold 40 MiB.
    const data: JsonObject = {};
    for (let i = 0; i < 40; i++) data[`k${i}`] = '{{ big }}';
    const rule: Rule = {
      name: 'spread',
      match: configMapMatch,
      context: [{ name: 'big', variable: { value: 'x'.repeat(1024 * 1024) } }],
      mutate: { patchStrategicMerge: { data } },
    };
    const response = await mutate([rule]);
    expect(response.rules[0]).toMatchObject({ name: 'spread', status: 'error' });
    expect(response.rules[0]!.message).toBe(
      'the strategic merge patch (patchStrategicMerge after substitution) exceeds the 3 MiB document size limit',
    );
  });

  it('bounds the patch text substitution builds from many references to one large value', async () => {
    // 400 references to a 1 MiB object: 400 MiB of text (and 400 passes of Kyverno's re-scan) unbounded.
    const value = `{{ big }}`;
    const operations = Array.from({ length: 400 }, (_, i) => `{"op": "add", "path": "/data/k${i}", "value": ${value}}`);
    const rule: Rule = {
      name: 'inflate',
      match: configMapMatch,
      context: [{ name: 'big', variable: { value: { text: 'x'.repeat(1024 * 1024) } } }],
      mutate: { patchesJson6902: `[${operations.join(', ')}]` },
    };
    const started = performance.now();
    const response = await mutate([rule]);
    expect(response.rules[0]).toMatchObject({ name: 'inflate', status: 'error' });
    expect(response.rules[0]!.message).toBe(
      'the text substituted at /mutate/patchesJson6902 exceeds the 3 MiB document size limit',
    );
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('bounds a string template built from many references', async () => {
    const rule: Rule = {
      name: 'label-text',
      match: configMapMatch,
      context: [{ name: 'big', variable: { value: 'x'.repeat(1024 * 1024) } }],
      mutate: { patchStrategicMerge: { data: { joined: 'a {{ big }} {{ big }} {{ big }} {{ big }} b' } } },
    };
    const response = await mutate([rule]);
    expect(response.rules[0]).toMatchObject({ status: 'error' });
    expect(response.rules[0]!.message).toBe(
      'the text substituted at /mutate/patchStrategicMerge/data/joined exceeds the 3 MiB document size limit',
    );
  });

  it('caps the operations of one rule, JSON-patch operations counted one by one', async () => {
    const operations = Array.from({ length: 150 }, (_, i) => ({ op: 'add', path: `/data/k${i}`, value: 'v' }));
    const rule: Rule = { name: 'many', match: configMapMatch, mutate: { patchesJson6902: JSON.stringify(operations) } };
    const capped = await mutate([rule], configMap(), { limits: { maxRuleOperations: 100 } });
    expect(capped.rules[0]).toMatchObject({ status: 'error' });
    expect(capped.rules[0]!.message).toBe(
      'a JSON patch of 150 operations brings the rule past its limit of 100 operations (JSON-patch operations, strategic merges, foreach elements and generated objects)',
    );
    expect((await mutate([rule], configMap(), { limits: { maxRuleOperations: 200 } })).rules[0]).toMatchObject({
      status: 'pass',
    });
  });

  it('counts nested foreach elements and their patches together, per rule', async () => {
    const keys: JsonObject = {};
    for (let i = 0; i < 20; i++) keys[`k${i}`] = 'v';
    const nested: Rule = {
      name: 'product',
      match: configMapMatch,
      mutate: {
        foreach: [
          {
            list: 'items(request.object.data, `"key"`, `"value"`)',
            foreach: [
              {
                list: 'items(request.object.data, `"key"`, `"value"`)',
                patchesJson6902: '[{"op": "add", "path": "/metadata/labels/seen", "value": "yes"}]',
              },
            ],
          },
        ],
      },
    };
    // 20 outer + 20 x (20 inner elements + 20 operations) = 820 operations.
    const capped = await mutate([nested, labelRule], configMap(keys), { limits: { maxRuleOperations: 800 } });
    expect(capped.rules[0]).toMatchObject({ name: 'product', status: 'error' });
    expect(capped.rules[0]!.message).toContain('brings the rule past its limit of 800 operations');
    // Each rule counts afresh.
    expect(capped.rules[1]).toMatchObject({ name: 'label', status: 'pass' });
    const within = await mutate([nested], configMap(keys), { limits: { maxRuleOperations: 820 } });
    expect(within.rules[0]).toMatchObject({ status: 'pass' });
  });

  it('looks at the deadline between JSON-patch operations', async () => {
    const operations = Array.from({ length: 50 }, () => ({ op: 'test', path: '/data/a', value: 'x'.repeat(1000) }));
    const rule: Rule = { name: 'slow', match: configMapMatch, mutate: { patchesJson6902: JSON.stringify(operations) } };
    const deadline = expiresAfter(5);
    await expect(mutate([rule], configMap(), {}, deadline)).rejects.toBeInstanceOf(EvaluationDeadlineExceeded);
    expect(deadline.asked).toBeLessThan(10);
  });

  it('keeps the bounds off when set to zero', async () => {
    const response = await mutate([copyChainRule(8)], configMap(), {
      limits: { ...DEFAULT_EVALUATION_LIMITS, maxDocumentSize: 0, maxRuleOperations: 0 },
    });
    expect(response.rules[0]).toMatchObject({ status: 'pass' });
  });
});

describe('objects a generate rule builds are bounded', () => {
  const generateRule = (generate: Rule['generate']): Rule => ({ name: 'make', match: configMapMatch, generate });

  async function generate(rules: Rule[], deps: EngineDependencies = {}) {
    const engine = new Engine(deps);
    return engine.generate(engine.compile(tenantPolicy(rules)), create(configMap()));
  }

  it('ends a generated object past the limit in a rule error, before copying its data', async () => {
    const data: JsonObject = {};
    for (let i = 0; i < 40; i++) data[`k${i}`] = '{{ big }}';
    const rule: Rule = {
      ...generateRule({ apiVersion: 'v1', kind: 'ConfigMap', name: 'out', namespace: 'team-a', data: { data } }),
      context: [{ name: 'big', variable: { value: 'x'.repeat(1024 * 1024) } }],
    };
    const response = await generate([rule]);
    expect(response.rules[0]).toMatchObject({ name: 'make', status: 'error' });
    expect(response.rules[0]!.message).toBe('generate.data after substitution exceeds the 3 MiB document size limit');
  });

  it('bounds the objects of a foreach together and counts each element', async () => {
    const rule = generateRule({
      foreach: [
        {
          list: 'items(request.object.data, `"key"`, `"value"`)',
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'copy-{{ element.key }}',
          namespace: 'team-a',
          data: { data: { value: '{{ element.value }}' } },
        },
      ],
    });
    const keys: JsonObject = {};
    for (let i = 0; i < 20; i++) keys[`k${i}`] = 'x'.repeat(30 * 1024);
    const engine = new Engine({ limits: { maxDocumentSize: 128 * 1024 } });
    const response = await engine.generate(engine.compile(tenantPolicy([rule])), create(configMap(keys)));
    expect(response.rules[0]).toMatchObject({ status: 'error' });
    expect(response.rules[0]!.message).toMatch(
      /^the generated object v1\/ConfigMap team-a\/copy-k\d+ brings the rule's generated objects past 512 KiB together$/,
    );
    const counted = await new Engine({ limits: { maxRuleOperations: 30 } }).generate(
      engine.compile(tenantPolicy([rule])),
      create(configMap(keys)),
    );
    // 20 elements and 20 objects.
    expect(counted.rules[0]!.message).toContain('brings the rule past its limit of 30 operations');
  });
});
