import { describe, expect, it } from 'vitest';
import type { UpdateRequestSpec } from '@edict/admission';
import { Engine, type Policy } from '@edict/engine';
import { KubeApiError, type EventInput } from '@edict/kube';
import type { CachedPolicy } from '@edict/policy';
import type { AppliedRule } from '../reports/trigger-report';
import { FakeCluster } from '../testing/fake-cluster';
import { UpdateRequestProcessor } from './update-request-processor';
import type { UpdateRequest } from './update-request';

const engine = new Engine();

const policy: Policy = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'team-quota' },
  spec: {
    rules: [
      {
        name: 'quota',
        match: { any: [{ resources: { kinds: ['Namespace'] } }] },
        generate: {
          apiVersion: 'v1',
          kind: 'ResourceQuota',
          name: 'quota',
          namespace: '{{request.object.metadata.name}}',
          data: { spec: { hard: { pods: '{{request.object.metadata.labels.pods}}' } } },
        },
      },
    ],
  },
} as Policy;

function cached(source: Policy): CachedPolicy {
  const compiled = engine.compile(source);
  return {
    key: compiled.key,
    kind: 'ClusterPolicy',
    name: source.metadata.name,
    uid: 'policy-uid',
    compiled,
    failurePolicy: 'Fail',
    admission: true,
    ruleTypes: new Set(['generate']),
    warnings: [],
  };
}

function spec(trigger: string): UpdateRequestSpec {
  const resource = { apiVersion: 'v1', kind: 'Namespace', name: trigger };
  return {
    requestType: 'generate',
    policy: 'team-quota',
    rule: 'quota',
    deleteDownstream: false,
    ruleContext: [{ rule: 'quota', deleteDownstream: false, trigger: resource }],
    resource,
    context: { userInfo: { userInfo: { username: 'alice' } }, admissionRequestInfo: { operation: 'CREATE' } },
  };
}

function setup(options: { maxRetries?: number; successEvents?: boolean; now?: number } = {}) {
  const cluster = new FakeCluster();
  const events: Array<{ source: string; event: EventInput }> = [];
  const reports: Array<{ requestKey: string; applied: AppliedRule }> = [];
  const policies = new Map([['team-quota', cached(policy)]]);
  const processor = new UpdateRequestProcessor(
    {
      engine,
      cluster,
      namespaceLabels: async () => undefined,
      emit: (source, event) => events.push({ source, event }),
      generateSuccessEvents: () => options.successEvents ?? false,
      policy: (key) => policies.get(key),
      report: async (requestKey, applied) => {
        reports.push({ requestKey, applied });
      },
    },
    {
      namespace: 'kyverno',
      maxRetries: options.maxRetries ?? 3,
      admissionWaitMs: 30_000,
      ...(options.now !== undefined ? { now: () => options.now! } : {}),
    },
  );
  const request = (name: string, trigger: string, status?: UpdateRequest['status']) =>
    cluster.put({
      apiVersion: 'kyverno.io/v2',
      kind: 'UpdateRequest',
      metadata: { name, namespace: 'kyverno' },
      spec: spec(trigger),
      ...(status ? { status } : {}),
    });
  const stored = (name: string) =>
    cluster.find('kyverno.io/v2', 'UpdateRequest', name, 'kyverno') as UpdateRequest | undefined;
  return { cluster, events, reports, processor, request, stored, policies };
}

describe('UpdateRequestProcessor', () => {
  it('leaves a request from a review untouched until the trigger it admitted is stored, then generates', async () => {
    const { cluster, processor, stored } = setup({ now: Date.parse('2026-11-28T12:00:01Z') });
    const fromReview = spec('team-a');
    fromReview.resource.uid = 'ns-uid';
    fromReview.context.admissionRequestInfo.admissionRequest = {
      uid: 'review-1',
      operation: 'CREATE',
    } as NonNullable<UpdateRequestSpec['context']['admissionRequestInfo']['admissionRequest']>;
    cluster.put({
      apiVersion: 'kyverno.io/v2',
      kind: 'UpdateRequest',
      metadata: { name: 'ur-1', namespace: 'kyverno', creationTimestamp: '2026-11-28T12:00:00Z' },
      spec: fromReview,
    });
    expect(await processor.step('ur-1')).toEqual({ kind: 'waiting' });
    expect(stored('ur-1')?.status).toBeUndefined();
    expect(cluster.writes).toEqual([]);
    cluster.put({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', uid: 'ns-uid', labels: { pods: '3' } },
    });
    expect(await processor.step('ur-1')).toEqual({ kind: 'completed' });
    expect(cluster.find('v1', 'ResourceQuota', 'quota', 'team-a')?.spec).toEqual({ hard: { pods: '3' } });
  });

  it('generates for a Pending request, marks it Completed with what it created, then deletes it', async () => {
    const { cluster, processor, request, stored, events } = setup({ successEvents: true });
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { pods: '10' } } });
    request('ur-1', 'team-a', { state: 'Pending' });
    expect(await processor.step('ur-1')).toEqual({ kind: 'completed' });
    const quota = cluster.find('v1', 'ResourceQuota', 'quota', 'team-a');
    expect(quota?.spec).toEqual({ hard: { pods: '10' } });
    expect(quota?.metadata?.labels).toMatchObject({ 'generate.kyverno.io/policy-name': 'team-quota' });
    expect(cluster.writes.filter((write) => write.startsWith('status'))).toEqual(['status UpdateRequest ur-1']);
    expect(stored('ur-1')).toBeUndefined();
    expect(
      events.map(({ source, event }) => `${source} ${event.reason} ${event.regarding.kind} ${event.note}`),
    ).toEqual([
      'kyverno-generate PolicyApplied ResourceQuota Created ResourceQuota quota as a result of applying policy team-quota/quota',
      'kyverno-generate PolicyApplied ClusterPolicy resource generated',
    ]);
  });

  it('reports the rule applied about its trigger under the request, once its objects are written', async () => {
    const { cluster, processor, request, reports } = setup();
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { pods: '10' } } });
    const stored = request('ur-1', 'team-a', { state: 'Pending' });
    await processor.step('ur-1');
    expect(reports).toHaveLength(1);
    const [{ requestKey, applied }] = reports as [(typeof reports)[number]];
    expect(requestKey).toBe(stored.metadata?.uid);
    expect(applied).toMatchObject({ type: 'generate', policy: { key: 'team-quota' } });
    expect(applied.request.resource?.metadata?.name).toBe('team-a');
    expect(applied.response.rules.map((rule) => [rule.name, rule.status])).toEqual([['quota', 'pass']]);
    expect(applied.response.rules[0]?.generatedResources).toMatchObject([
      { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { namespace: 'team-a', name: 'quota' } },
    ]);
  });

  it('announces nothing on success unless generateSuccessEvents is on', async () => {
    const { cluster, processor, request, events } = setup();
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { pods: '1' } } });
    request('ur-1', 'team-a');
    await processor.step('ur-1');
    expect(events).toEqual([]);
  });

  it('fails a request whose trigger is gone, counting the retry, and deletes it past the limit', async () => {
    const { processor, request, stored } = setup({ maxRetries: 1 });
    request('ur-1', 'gone');
    expect(await processor.step('ur-1')).toMatchObject({ kind: 'failed', retryCount: 1 });
    expect(stored('ur-1')?.status).toEqual({
      state: 'Failed',
      message: 'rule quota failed: failed to fetch trigger resource: trigger v1/Namespace gone not found',
      retryCount: 1,
    });
    // Retried: back to Pending and processed again; fails a second time.
    expect(await processor.step('ur-1')).toMatchObject({ kind: 'failed', retryCount: 2 });
    expect(await processor.step('ur-1')).toMatchObject({ kind: 'dropped' });
    expect(stored('ur-1')).toBeUndefined();
  });

  it('reports a rule error as a PolicyError Event on the policy, related to the trigger', async () => {
    const { cluster, processor, request, events } = setup();
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    request('ur-1', 'team-a');
    const result = await processor.step('ur-1');
    expect(result).toMatchObject({ kind: 'failed' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      source: 'kyverno-generate',
      event: {
        type: 'Warning',
        reason: 'PolicyError',
        regarding: { kind: 'ClusterPolicy', name: 'team-quota', uid: 'policy-uid' },
        related: { kind: 'Namespace', name: 'team-a' },
      },
    });
    expect(events[0]!.event.note).toMatch(/^policy team-quota\/quota error: .*request\.object\.metadata\.labels\.pods/);
  });

  it('reports nothing when the objects could not be made or the trigger cannot be read', async () => {
    const { cluster, processor, request, reports } = setup();
    // No `pods` label: the data cannot be filled in, so nothing is written (Kyverno reports only then).
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    request('ur-1', 'team-a');
    request('ur-2', 'gone');
    expect(await processor.step('ur-1')).toMatchObject({ kind: 'failed' });
    expect(await processor.step('ur-2')).toMatchObject({ kind: 'failed' });
    expect(reports).toEqual([]);
  });

  it('fails while the policy is unknown and deletes a Completed request left behind', async () => {
    const { processor, request, stored, policies } = setup();
    policies.clear();
    request('ur-1', 'team-a');
    expect(await processor.step('ur-1')).toMatchObject({ kind: 'failed', message: 'policy team-quota not found' });
    request('ur-2', 'team-a', { state: 'Completed' });
    expect(await processor.step('ur-2')).toEqual({ kind: 'completed' });
    expect(stored('ur-2')).toBeUndefined();
    expect(await processor.step('ur-3')).toEqual({ kind: 'gone' });
  });

  it("starts from the informer's copy without reading the request; a stale copy is read again", async () => {
    const { cluster, processor, request, stored } = setup();
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { pods: '3' } } });
    const copy = request('ur-1', 'team-a', { state: 'Pending' }) as UpdateRequest;
    expect(await processor.step('ur-1', copy)).toEqual({ kind: 'completed' });
    expect(cluster.reads.filter((read) => read.includes('UpdateRequest'))).toEqual([]);
    expect(stored('ur-1')).toBeUndefined();

    // Another leader completed ur-2 after the informer's copy: the status write conflicts, the
    // request is read again and, Completed, deleted.
    const stale = request('ur-2', 'team-a', { state: 'Pending' }) as UpdateRequest;
    request('ur-2', 'team-a', { state: 'Completed' });
    expect(await processor.step('ur-2', stale)).toEqual({ kind: 'completed' });
    expect(cluster.reads.filter((read) => read.includes('UpdateRequest'))).toEqual(['get UpdateRequest ur-2']);
    expect(stored('ur-2')).toBeUndefined();
  });

  it('does the work once when its status write conflicts with a rewrite of Pending', async () => {
    const { cluster, processor, request, reports, stored } = setup();
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { pods: '3' } } });
    // The informer's copy predates the admission controller's status write (Pending again).
    const copy = request('ur-1', 'team-a') as UpdateRequest;
    request('ur-1', 'team-a', { state: 'Pending' });
    expect(await processor.step('ur-1', copy)).toEqual({ kind: 'completed' });
    expect(reports).toHaveLength(1);
    expect(stored('ur-1')).toBeUndefined();
  });

  it('reads the request again when another leader moved it meanwhile', async () => {
    const { cluster, processor, request } = setup();
    cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { pods: '3' } } });
    request('ur-1', 'team-a');
    const original = cluster.replace.bind(cluster);
    let raced = false;
    cluster.replace = async (object, subresource) => {
      if (!raced && subresource === 'status') {
        raced = true;
        // The other leader completed it first.
        await original({ ...object, status: { state: 'Completed' }, metadata: { ...object.metadata } }, 'status');
        throw new KubeApiError(409, 'Conflict', 'the object has been modified');
      }
      return original(object, subresource);
    };
    expect(await processor.step('ur-1')).toEqual({ kind: 'completed' });
    expect([...cluster.objects.keys()].filter((key) => key.includes('ResourceQuota'))).toHaveLength(1);
  });
});
