import { describe, expect, it } from 'vitest';
import type { UpdateRequestSpec } from '@edict/admission';
import { Engine, type Policy, type Rule } from '@edict/engine';
import type { ObjectHeader } from '@edict/foundation';
import type { CachedPolicy } from '@edict/policy';
import { ListingFakeCluster } from '../testing/listing-fake-cluster';
import { PolicyLifecycle } from './policy-lifecycle';

const engine = new Engine();
const namespaces = { any: [{ resources: { kinds: ['Namespace'] } }] };

function cached(rules: Rule[], spec: Partial<Policy['spec']> = {}, generation = 1): CachedPolicy {
  const source = {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p', uid: 'p-uid', generation },
    spec: { ...spec, rules },
  } as Policy;
  return {
    key: 'p',
    kind: 'ClusterPolicy',
    name: 'p',
    uid: 'p-uid',
    compiled: engine.compile(source),
    failurePolicy: 'Fail',
    admission: true,
    ruleTypes: new Set(),
    warnings: [],
    source,
  };
}

const dataRule = (name: string, generate: Partial<NonNullable<Rule['generate']>> = {}, match = namespaces): Rule => ({
  name,
  match,
  generate: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: name,
    namespace: '{{request.object.metadata.name}}',
    data: { data: { a: '1' } },
    ...generate,
  },
});

/** A ConfigMap as a generate rule of `policy` left it for the Namespace `trigger`. */
function downstream(
  name: string,
  trigger: ObjectHeader,
  policy: string,
  rule: string,
): ObjectHeader & { data: Record<string, string> } {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: trigger.metadata?.name,
      labels: {
        'app.kubernetes.io/managed-by': 'kyverno',
        'generate.kyverno.io/policy-name': policy,
        'generate.kyverno.io/policy-namespace': '',
        'generate.kyverno.io/rule-name': rule,
        'generate.kyverno.io/trigger-group': '',
        'generate.kyverno.io/trigger-version': 'v1',
        'generate.kyverno.io/trigger-kind': 'Namespace',
        'generate.kyverno.io/trigger-namespace': '',
        'generate.kyverno.io/trigger-uid': trigger.metadata?.uid ?? '',
        keep: 'me',
      },
    },
    data: { a: '0' },
  };
}

function setup(maxRequests = 100) {
  const cluster = new ListingFakeCluster([
    { apiVersion: 'v1', kind: 'Namespace', namespaced: false },
    { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true },
    { apiVersion: 'v1', kind: 'Secret', namespaced: true },
  ]);
  const warnings: string[] = [];
  const lifecycle = new PolicyLifecycle(
    {
      cluster,
      engine,
      namespace: 'kyverno',
      namespaceLabels: async (namespace) =>
        namespace ? (cluster.find('v1', 'Namespace', namespace)?.metadata?.labels ?? {}) : undefined,
      log: () => undefined,
      warn: (message) => warnings.push(message),
    },
    { maxRequests },
  );
  const namespace = (name: string, labels: Record<string, string> = {}) =>
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  const requests = () =>
    [...cluster.objects.values()]
      .filter((object) => object.kind === 'UpdateRequest')
      .map((object) => object.spec as unknown as UpdateRequestSpec);
  const configMaps = () =>
    [...cluster.objects.values()]
      .filter((object) => object.kind === 'ConfigMap')
      .map((object) => object.metadata?.name);
  return { cluster, lifecycle, warnings, namespace, requests, configMaps };
}

describe('PolicyLifecycle', () => {
  it('creates a generate request for each existing resource a generateExisting rule matches, once', async () => {
    const { lifecycle, namespace, requests, cluster } = setup();
    const teamA = namespace('team-a', { team: 'yes' });
    namespace('team-b', { team: 'yes' });
    namespace('other');
    const match = { any: [{ resources: { kinds: ['Namespace'], selector: { matchLabels: { team: 'yes' } } } }] };
    const policy = cached([dataRule('quota', { generateExisting: true }, match), dataRule('plain', {}, match)]);
    await lifecycle.handle({ type: 'created', policy });
    expect(
      requests()
        .map((spec) => `${spec.requestType} ${spec.rule} ${spec.resource.name}`)
        .sort(),
    ).toEqual(['generate quota team-a', 'generate quota team-b']);
    expect(requests().find((spec) => spec.resource.name === 'team-a')).toMatchObject({
      policy: 'p',
      resource: { apiVersion: 'v1', kind: 'Namespace', name: 'team-a', uid: teamA.metadata?.uid },
      ruleContext: [{ rule: 'quota', deleteDownstream: false }],
      context: { admissionRequestInfo: { operation: 'CREATE' } },
    });
    // Seen again (a relist, another leader): nothing new.
    const stored = cluster.objects.size;
    await lifecycle.handle({ type: 'created', policy });
    expect(cluster.objects.size).toBe(stored);
  });

  it('creates mutate requests for mutateExistingOnPolicyUpdate rules only', async () => {
    const { lifecycle, namespace, requests } = setup();
    namespace('shop');
    const mutateRule = (name: string, onPolicyUpdate?: boolean): Rule => ({
      name,
      match: namespaces,
      mutate: {
        ...(onPolicyUpdate === undefined ? {} : { mutateExistingOnPolicyUpdate: onPolicyUpdate }),
        targets: [{ apiVersion: 'v1', kind: 'Secret', namespace: '{{request.object.metadata.name}}' }],
        patchStrategicMerge: { metadata: { labels: { seen: 'yes' } } },
      },
    });
    const policy = cached([mutateRule('off', false), mutateRule('inherit')], { mutateExistingOnPolicyUpdate: true });
    await lifecycle.handle({ type: 'created', policy });
    expect(requests().map((spec) => `${spec.requestType} ${spec.rule} ${spec.resource.name}`)).toEqual([
      'mutate inherit shop',
    ]);
  });

  it('deletes what synchronized data rules generated when the policy is deleted, and nothing else', async () => {
    const { cluster, lifecycle, namespace, configMaps } = setup();
    const team = namespace('team');
    for (const rule of ['sync', 'orphan', 'clone', 'nosync']) cluster.put(downstream(rule, team, 'p', rule));
    cluster.put(downstream('other-policy', team, 'q', 'sync'));
    const policy = cached([
      dataRule('sync', { synchronize: true }),
      dataRule('orphan', { synchronize: true, orphanDownstreamOnPolicyDelete: true }),
      dataRule('clone', { synchronize: true, data: undefined, clone: { namespace: 'default', name: 'x' } }),
      dataRule('nosync'),
    ]);
    await lifecycle.handle({ type: 'deleted', previous: policy });
    expect(configMaps().sort()).toEqual(['clone', 'nosync', 'orphan', 'other-policy']);
    // Orphaned objects keep their labels, as Kyverno leaves them.
    expect(cluster.find('v1', 'ConfigMap', 'orphan', 'team')?.metadata?.labels).toMatchObject({
      'generate.kyverno.io/policy-name': 'p',
    });
  });

  it('on update, deletes the downstream of a removed rule; without removals, releases a moved rule’s objects', async () => {
    const { cluster, lifecycle, namespace, configMaps } = setup();
    const team = namespace('team');
    cluster.put(downstream('stays', team, 'p', 'stays'));
    cluster.put(downstream('removed', team, 'p', 'removed'));
    const both = cached([dataRule('stays', { synchronize: true }), dataRule('removed', { synchronize: true })]);
    const one = cached([dataRule('stays', { synchronize: true })], {}, 2);
    await lifecycle.handle({ type: 'updated', policy: one, previous: both });
    expect(configMaps()).toEqual(['stays']);

    const moved = cached([dataRule('stays', { synchronize: true, name: 'stays-new' })], {}, 3);
    await lifecycle.handle({ type: 'updated', policy: moved, previous: one });
    const labels = cluster.find('v1', 'ConfigMap', 'stays', 'team')?.metadata?.labels;
    expect(labels).not.toHaveProperty('generate.kyverno.io/policy-name');
    expect(labels).not.toHaveProperty('generate.kyverno.io/rule-name');
    expect(labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'kyverno', keep: 'me' });
    // Released, it no longer belongs to the rule: deleting the policy keeps it.
    await lifecycle.handle({ type: 'deleted', previous: moved });
    expect(configMaps()).toEqual(['stays']);
  });

  it('on update, asks again for the triggers of a synchronized data rule’s downstream objects that still exist', async () => {
    const { cluster, lifecycle, namespace, requests } = setup();
    const team = namespace('team');
    cluster.put(downstream('sync', team, 'p', 'sync'));
    cluster.put(downstream('sync', { metadata: { name: 'gone', uid: 'gone-uid' } }, 'p', 'sync'));
    const before = cached([dataRule('sync', { synchronize: true })]);
    const after = cached([dataRule('sync', { synchronize: true, data: { data: { a: '2' } } })], {}, 2);
    await lifecycle.handle({ type: 'updated', policy: after, previous: before });
    expect(requests().map((spec) => `${spec.rule} ${spec.resource.name}`)).toEqual(['sync team']);
  });

  it('stops at the request budget of one change and says so', async () => {
    const { lifecycle, namespace, requests, warnings } = setup(1);
    namespace('a');
    namespace('b');
    namespace('c');
    await lifecycle.handle({ type: 'created', policy: cached([dataRule('quota', { generateExisting: true })]) });
    expect(requests()).toHaveLength(1);
    expect(warnings).toEqual([
      'ClusterPolicy p: more than 1 UpdateRequests for one change of the policy; the rest are not created',
    ]);
  });

  it('stops when leadership ends', async () => {
    const { lifecycle, namespace, requests } = setup();
    namespace('a');
    const controller = new AbortController();
    controller.abort();
    await lifecycle.handle(
      { type: 'created', policy: cached([dataRule('quota', { generateExisting: true })]) },
      controller.signal,
    );
    expect(requests()).toEqual([]);
  });
});
