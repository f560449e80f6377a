import { Logger } from '@nestjs/common';
import { describe, expect, it, vi } from 'vitest';
import type { UpdateRequestSpec } from '@edict/admission';
import { KubeApiError } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import { UR_REQUEST_KEY_LABEL, UpdateRequestCreator } from './update-request-creator';
import { hashEncodeName, updateRequestLabels } from './update-request-labels';

const spec = (requestType: 'generate' | 'mutate', policy = 'copy-config'): UpdateRequestSpec => ({
  requestType,
  policy,
  rule: 'r',
  deleteDownstream: false,
  ruleContext: [],
  resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web', uid: 'd-uid' },
  context: { userInfo: { userInfo: { username: 'alice' } }, admissionRequestInfo: { operation: 'CREATE' } },
});

/** KubeResources' create/replace over a list (names unique, as the API server keeps them), with scripted failures and delays. */
function fakeResources() {
  const stored: KubeObject[] = [];
  const failures: unknown[] = [];
  const timing = { createDelayMs: 0 };
  return {
    stored,
    failures,
    timing,
    async create(object: KubeObject) {
      if (timing.createDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, timing.createDelayMs));
      if (stored.some((o) => o.metadata?.name === object.metadata?.name))
        throw new KubeApiError(409, 'AlreadyExists', `${object.metadata?.name} already exists`);
      const created = { ...object };
      stored.push(created);
      if (failures.length > 0) throw failures.shift(); // stored, but the answer is lost
      return created;
    },
    async replace(object: KubeObject) {
      const index = stored.findIndex((o) => o.metadata?.name === object.metadata?.name);
      stored[index] = object;
      return object;
    },
  };
}

/** The fake's plain KubeObject signatures, as KubeResources' generic ones. */
const asResources = (fake: ReturnType<typeof fakeResources>) =>
  fake as unknown as ConstructorParameters<typeof UpdateRequestCreator>[0];

describe('updateRequestLabels', () => {
  it("labels generate requests by policy name, mutate ones by policy and trigger (Kyverno's labels)", () => {
    expect(updateRequestLabels(spec('generate', 'ns/local'))).toEqual({ 'generate.kyverno.io/policy-name': 'local' });
    expect(updateRequestLabels(spec('mutate'))).toEqual({
      'mutate.updaterequest.kyverno.io/policy-name': 'copy-config',
      'mutate.updaterequest.kyverno.io/trigger-hashed-encoded-name': hashEncodeName('web'),
      'mutate.updaterequest.kyverno.io/trigger-uid': 'd-uid',
      'mutate.updaterequest.kyverno.io/trigger-namespace': 'default',
      'mutate.updaterequest.kyverno.io/trigger-kind': 'Deployment',
      'mutate.updaterequest.kyverno.io/trigger-apiversion': 'apps-v1',
    });
  });

  it('hash-encodes names as lower-case unpadded base32 of SHA-256 (52 characters)', () => {
    const encoded = hashEncodeName('web');
    expect(encoded).toMatch(/^[a-z2-7]{52}$/);
    expect(hashEncodeName('')).toBe('4oymiquy7qobjgx36tejs35zeqt24qpemsnzgtfeswmrw6csxbkq');
  });
});

describe('UpdateRequestCreator', () => {
  it('creates in the controller namespace under a name derived from the request, with labels and status Pending', async () => {
    const resources = fakeResources();
    const creator = new UpdateRequestCreator(asResources(resources), { namespace: 'edict', queueSize: 10 });
    creator.submit({ requestUid: 'req-1', spec: spec('generate') });
    await creator.whenIdle();
    expect(resources.stored).toHaveLength(1);
    expect(resources.stored[0]).toMatchObject({
      apiVersion: 'kyverno.io/v2',
      kind: 'UpdateRequest',
      metadata: {
        name: expect.stringMatching(/^ur-[0-9a-f]{40}$/),
        namespace: 'edict',
        labels: { 'generate.kyverno.io/policy-name': 'copy-config' },
      },
      spec: { requestType: 'generate', policy: 'copy-config' },
      status: { state: 'Pending' },
    });
  });

  it('a retry after a lost answer meets the first request (AlreadyExists) instead of creating a second', async () => {
    const resources = fakeResources();
    resources.failures.push(new KubeApiError(503, 'ServiceUnavailable', 'try again'));
    const creator = new UpdateRequestCreator(asResources(resources), {
      namespace: 'edict',
      queueSize: 10,
      retry: { sleep: async () => undefined },
    });
    creator.submit({ requestUid: 'req-1', spec: spec('generate') });
    await creator.whenIdle();
    expect(resources.stored).toHaveLength(1);
    expect(resources.stored[0]!.metadata?.labels?.[UR_REQUEST_KEY_LABEL]).toMatch(/^[0-9a-f]{40}$/);
    expect(resources.stored[0]!.metadata?.name).toBe(
      `ur-${resources.stored[0]!.metadata?.labels?.[UR_REQUEST_KEY_LABEL]}`,
    );
  });

  it('writes the same review twice as one request (two replicas, or a replayed review)', async () => {
    const resources = fakeResources();
    const creator = new UpdateRequestCreator(asResources(resources), { namespace: 'edict', queueSize: 10 });
    const jobs = [{ requestUid: 'req-1', spec: spec('generate') }];
    expect(await creator.writeBeforeAnswer(jobs, 5_000)).toEqual({ written: 1, late: 0, failed: 0 });
    expect(await creator.writeBeforeAnswer(jobs, 5_000)).toEqual({ written: 1, late: 0, failed: 0 });
    await creator.whenIdle();
    expect(resources.stored).toHaveLength(1);
  });

  describe('writeBeforeAnswer', () => {
    it('resolves once every request is stored, without the queue (a queue of 0 drops nothing)', async () => {
      const resources = fakeResources();
      const creator = new UpdateRequestCreator(asResources(resources), { namespace: 'edict', queueSize: 0 });
      const jobs = Array.from({ length: 50 }, (_, i) => ({ requestUid: `req-${i}`, spec: spec('generate') }));
      const result = await creator.writeBeforeAnswer(jobs, 10_000);
      expect(result).toEqual({ written: 50, late: 0, failed: 0 });
      expect(resources.stored).toHaveLength(50);
      expect(creator.stats()).toMatchObject({ beforeAnswer: 50, late: 0, dropped: 0 });
      await creator.whenIdle();
      expect(resources.stored.every((o) => (o.status as { state?: string }).state === 'Pending')).toBe(true);
    });

    it('past its budget answers and counts the request late; the write still completes', async () => {
      const resources = fakeResources();
      resources.timing.createDelayMs = 200;
      const creator = new UpdateRequestCreator(asResources(resources), { namespace: 'edict', queueSize: 10 });
      const result = await creator.writeBeforeAnswer([{ requestUid: 'req-1', spec: spec('mutate') }], 10);
      expect(result).toEqual({ written: 0, late: 1, failed: 0 });
      expect(creator.stats().late).toBe(1);
      expect(await creator.drain(5_000)).toBe(true);
      expect(resources.stored).toHaveLength(1);
    });

    it('counts a request the API server refuses as failed, without throwing', async () => {
      const resources = fakeResources();
      resources.failures.push(new KubeApiError(422, 'Invalid', 'bad spec'));
      resources.create = (async () => {
        throw resources.failures.shift();
      }) as typeof resources.create;
      const creator = new UpdateRequestCreator(asResources(resources), { namespace: 'edict', queueSize: 10 });
      const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      try {
        expect(await creator.writeBeforeAnswer([{ requestUid: 'req-1', spec: spec('generate') }], 1_000)).toEqual({
          written: 0,
          late: 0,
          failed: 1,
        });
      } finally {
        warn.mockRestore();
      }
      expect(creator.stats().lost).toBe(1);
    });
  });

  it('drops and counts when its queue is full', () => {
    const resources = fakeResources();
    let drops = 0;
    const creator = new UpdateRequestCreator(asResources(resources), {
      namespace: 'edict',
      queueSize: 0,
      onDrop: () => drops++,
    });
    expect(creator.submit({ requestUid: 'req-1', spec: spec('generate') })).toBe(false);
    expect(drops).toBe(1);
  });

  describe('updateRequestThreshold back pressure', () => {
    /** A creator whose cluster count is what the test sets, at threshold 2. */
    function pressured(count: number | undefined) {
      const resources = fakeResources();
      const state = { count, threshold: 2 };
      const creator = new UpdateRequestCreator(asResources(resources), {
        namespace: 'edict',
        queueSize: 10,
        backPressure: { count: () => state.count, threshold: () => state.threshold },
      });
      return { resources, creator, state };
    }

    it('creates while the cluster holds fewer UpdateRequests than the threshold', async () => {
      const { resources, creator } = pressured(1);
      creator.submit({ requestUid: 'req-1', spec: spec('generate') });
      await creator.whenIdle();
      expect(resources.stored).toHaveLength(1);
      expect(creator.stats().skipped).toBe(0);
    });

    it('skips and counts at or above the threshold, with a warning naming policy, rule and trigger', async () => {
      const { resources, creator, state } = pressured(2);
      const warnings: string[] = [];
      const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation((message) => void warnings.push(`${message}`));
      try {
        creator.submit({ requestUid: 'req-1', spec: spec('generate') });
        await creator.whenIdle();
        state.count = 7;
        creator.submit({ requestUid: 'req-2', spec: spec('mutate', 'add-label') });
        await creator.whenIdle();
      } finally {
        warn.mockRestore();
      }
      expect(resources.stored).toHaveLength(0);
      expect(creator.stats().skipped).toBe(2);
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toContain('policy copy-config, rule r, trigger Deployment default/web');
      expect(warnings[0]).toContain('2 UpdateRequests in namespace edict, at or above updateRequestThreshold 2');
      expect(warnings[1]).toContain('mutate UpdateRequest for policy add-label');
    });

    it('reads the threshold per request, and holds nothing back while the count is unknown', async () => {
      const { resources, creator, state } = pressured(undefined);
      creator.submit({ requestUid: 'req-1', spec: spec('generate') });
      await creator.whenIdle();
      state.count = 5;
      state.threshold = 6;
      creator.submit({ requestUid: 'req-2', spec: spec('generate') });
      await creator.whenIdle();
      expect(resources.stored).toHaveLength(2);
      expect(creator.stats().skipped).toBe(0);
    });
  });
});
