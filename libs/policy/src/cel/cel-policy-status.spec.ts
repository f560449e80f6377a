import { describe, expect, it } from 'vitest';
import { compileCelPolicyException, compileValidatingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import { KubeApiError } from '@edict/kube';
import type { WebhookPublication } from '../status/policy-status';
import { celStatusConditions, celStatusMatches, desiredCelPolicyStatus } from './cel-policy-status';
import { CelPolicyStatusWriter, type CelPolicyStatusStore } from './cel-policy-status-writer';
import { CelPolicyStore } from './cel-policy-store';

const rules = (resources: string) => ({
  resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: [resources] }],
});
const vpol = (name: string, spec: Record<string, unknown>, generation = 1): KubeObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'ValidatingPolicy',
  metadata: { name, uid: `uid-${name}`, generation, resourceVersion: String(generation) },
  spec: { matchConstraints: rules('configmaps'), validations: [{ expression: 'true' }], ...spec },
});
const T0 = new Date('2026-11-29T07:00:00.123Z');
const T1 = new Date('2026-11-29T08:00:00Z');

function entryOf(object: KubeObject) {
  return new CelPolicyStore({
    compilers: { policy: compileValidatingPolicy, exception: compileCelPolicyException },
  }).upsertPolicy(object);
}

describe('desiredCelPolicyStatus', () => {
  it("writes Kyverno's conditions, ready, autogen and generated for a policy run at admission and in background", () => {
    const status = desiredCelPolicyStatus(
      entryOf(vpol('p', { matchConstraints: rules('pods') })),
      { webhookConfigured: true },
      T0,
    );
    expect(status.conditionStatus).toEqual({
      ready: true,
      message: '',
      conditions: [
        {
          type: 'WebhookConfigured',
          status: 'True',
          reason: 'Succeeded',
          message: 'Webhook configured.',
          lastTransitionTime: '2026-11-29T07:00:00Z',
        },
        {
          type: 'RBACPermissionsGranted',
          status: 'True',
          reason: 'Succeeded',
          message: 'Policy is ready for reporting.',
          lastTransitionTime: '2026-11-29T07:00:00Z',
        },
      ],
    });
    expect(Object.keys((status.autogen as { configs: object }).configs).sort()).toEqual(['cronjobs', 'defaults']);
    expect(status.generated).toBe(false);
  });

  it('has no WebhookConfigured without admission, nor RBACPermissionsGranted without background', () => {
    const scanOnly = vpol('s', { evaluation: { admission: { enabled: false } } });
    expect(desiredCelPolicyStatus(entryOf(scanOnly), { webhookConfigured: false }, T0).conditionStatus).toMatchObject({
      ready: true,
      conditions: [{ type: 'RBACPermissionsGranted', status: 'True' }],
    });
    const admissionOnly = vpol('a', { evaluation: { background: { enabled: false } } });
    expect(
      desiredCelPolicyStatus(entryOf(admissionOnly), { webhookConfigured: false }, T0).conditionStatus,
    ).toMatchObject({
      ready: false,
      conditions: [
        { type: 'WebhookConfigured', status: 'False', reason: 'Failed', message: 'Webhook not configured.' },
      ],
    });
  });

  it('says which reporting permissions are missing', () => {
    const status = desiredCelPolicyStatus(
      entryOf(vpol('p', {})),
      { webhookConfigured: true, missingPermissions: ['list /v1, Resource=configmaps: '] },
      T0,
    );
    expect(status.conditionStatus).toMatchObject({
      ready: false,
      conditions: [
        { type: 'WebhookConfigured', status: 'True' },
        {
          type: 'RBACPermissionsGranted',
          status: 'False',
          reason: 'Failed',
          message: 'Policy is not ready for reporting, missing permissions: list /v1, Resource=configmaps: .',
        },
      ],
    });
  });

  it('is not ready, naming field and compiler message, when the policy does not compile', () => {
    const status = desiredCelPolicyStatus(
      entryOf(vpol('bad', { validations: [{ expression: 'objekt.x == 1' }] })),
      { webhookConfigured: false },
      T0,
    );
    expect(status.conditionStatus).toMatchObject({
      ready: false,
      conditions: [{ type: 'PolicyCached', status: 'False', reason: 'Failed' }],
    });
    const message = (status.conditionStatus as { conditions: Array<{ message: string }> }).conditions[0]!.message;
    expect(message).toMatch(/^Policy is not cached: spec\.validations\[0\]\.expression: .*objekt/);
    expect(status.autogen).toEqual({});
  });

  it('keeps a transition time while the condition holds its status, and matches itself', () => {
    const first = desiredCelPolicyStatus(entryOf(vpol('p', {})), { webhookConfigured: true }, T0);
    const stored = { ...vpol('p', {}), status: first };
    const again = desiredCelPolicyStatus(entryOf(stored), { webhookConfigured: true }, T1);
    expect(again).toEqual(first);
    expect(celStatusMatches(stored.status, again)).toBe(true);
    const changed = desiredCelPolicyStatus(entryOf(stored), { webhookConfigured: false }, T1);
    expect(celStatusMatches(stored.status, changed)).toBe(false);
    const conditions = (changed.conditionStatus as { conditions: Array<{ type: string; lastTransitionTime: string }> })
      .conditions;
    expect(conditions.find((c) => c.type === 'WebhookConfigured')!.lastTransitionTime).toBe('2026-11-29T08:00:00Z');
    expect(conditions.find((c) => c.type === 'RBACPermissionsGranted')!.lastTransitionTime).toBe(
      '2026-11-29T07:00:00Z',
    );
  });
});

describe('desiredCelPolicyStatus of MutatingPolicies and GeneratingPolicies', () => {
  const mpol = (name: string, spec: Record<string, unknown> = {}, namespace?: string): KubeObject => ({
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedMutatingPolicy' : 'MutatingPolicy',
    metadata: { name, uid: `uid-m-${name}`, generation: 1, ...(namespace ? { namespace } : {}) },
    spec: {
      matchConstraints: rules('pods'),
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }],
      ...spec,
    },
  });
  const gpol = (name: string, spec: Record<string, unknown> = {}, namespace?: string): KubeObject => ({
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedGeneratingPolicy' : 'GeneratingPolicy',
    metadata: { name, uid: `uid-g-${name}`, generation: 1, ...(namespace ? { namespace } : {}) },
    spec: {
      matchConstraints: rules('namespaces'),
      // A namespaced policy's Apply names no namespace: it generates in its own.
      generate: [{ expression: namespace ? 'generator.Apply([])' : 'generator.Apply("a", [])' }],
      ...spec,
    },
  });
  const entry = (object: KubeObject) => new CelPolicyStore().upsertPolicy(object);
  const types = (status: Record<string, unknown>) =>
    (status.conditionStatus as { conditions: Array<{ type: string; status: string }> }).conditions.map(
      (c) => `${c.type}=${c.status}`,
    );

  it("writes a MutatingPolicy's two conditions, ready, autogen for pod controllers and generated false", () => {
    const status = desiredCelPolicyStatus(entry(mpol('m')), { webhookConfigured: true }, T0);
    expect(types(status)).toEqual(['WebhookConfigured=True', 'RBACPermissionsGranted=True']);
    expect(status.conditionStatus).toMatchObject({ ready: true, message: '' });
    expect(Object.keys((status.autogen as { configs: object }).configs).sort()).toEqual(['cronjobs', 'defaults']);
    expect(status.generated).toBe(false);
    const local = desiredCelPolicyStatus(entry(mpol('n', {}, 'team')), { webhookConfigured: false }, T0);
    expect(types(local)).toEqual(['WebhookConfigured=False', 'RBACPermissionsGranted=True']);
    expect(local.conditionStatus).toMatchObject({ ready: false });
  });

  it('leaves WebhookConfigured out of a MutatingPolicy run in the background only, as Kyverno does', () => {
    const backgroundOnly = mpol('b', {
      evaluation: { admission: { enabled: false }, mutateExisting: { enabled: true } },
    });
    expect(celStatusConditions(entry(backgroundOnly))).toEqual({ webhook: false, reporting: true });
    const status = desiredCelPolicyStatus(entry(backgroundOnly), { webhookConfigured: false }, T0);
    expect(types(status)).toEqual(['RBACPermissionsGranted=True']);
    expect(status.conditionStatus).toMatchObject({ ready: true });
  });

  it('keeps the generated flag a MutatingPolicy already carries', () => {
    const stored = { ...mpol('m'), status: { generated: true } };
    expect(desiredCelPolicyStatus(entry(stored), { webhookConfigured: true }, T0).generated).toBe(true);
  });

  it("keeps the admission policy generator's generated flag and message on a ValidatingPolicy", () => {
    const message = 'skip generating ValidatingAdmissionPolicy: not enabled.';
    const stored = { ...vpol('v', {}), status: { generated: false, conditionStatus: { message } } };
    const status = desiredCelPolicyStatus(entry(stored), { webhookConfigured: true }, T0);
    expect(status.conditionStatus).toMatchObject({ message });
    const generated = { ...vpol('v', {}), status: { generated: true } };
    expect(desiredCelPolicyStatus(entry(generated), { webhookConfigured: true }, T0).generated).toBe(true);
  });

  it("writes a GeneratingPolicy's conditionStatus alone, both conditions, and names missing reporting permissions", () => {
    const status = desiredCelPolicyStatus(entry(gpol('g')), { webhookConfigured: true }, T0);
    expect(types(status)).toEqual(['WebhookConfigured=True', 'RBACPermissionsGranted=True']);
    expect(status.conditionStatus).toMatchObject({ ready: true });
    expect(Object.keys(status)).toEqual(['conditionStatus']);
    const denied = desiredCelPolicyStatus(
      entry(gpol('h', {}, 'team')),
      { webhookConfigured: true, missingPermissions: ['get /v1, Resource=namespaces: '] },
      T0,
    );
    expect(denied.conditionStatus).toMatchObject({
      ready: false,
      conditions: [
        { type: 'WebhookConfigured', status: 'True' },
        {
          type: 'RBACPermissionsGranted',
          status: 'False',
          message: 'Policy is not ready for reporting, missing permissions: get /v1, Resource=namespaces: .',
        },
      ],
    });
  });

  it('is not ready, naming the problem, when a GeneratingPolicy or MutatingPolicy does not compile', () => {
    const broken = desiredCelPolicyStatus(
      entry(gpol('g', { generate: [{ expression: 'nope(' }] })),
      { webhookConfigured: true },
      T0,
    );
    expect(broken.conditionStatus).toMatchObject({
      ready: false,
      conditions: [{ type: 'PolicyCached', status: 'False' }],
    });
    const mutating = desiredCelPolicyStatus(
      entry(mpol('m', { mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: 'nope(' } }] })),
      { webhookConfigured: true },
      T0,
    );
    expect(mutating.conditionStatus).toMatchObject({
      ready: false,
      conditions: [{ type: 'PolicyCached', status: 'False' }],
    });
    expect(mutating.autogen).toEqual({});
  });
});

describe('desiredCelPolicyStatus of DeletingPolicies', () => {
  const dpol = (name: string, schedule: string, namespace?: string): KubeObject => ({
    apiVersion: 'policies.kyverno.io/v1',
    kind: namespace ? 'NamespacedDeletingPolicy' : 'DeletingPolicy',
    metadata: { name, uid: `uid-d-${name}`, generation: 1, ...(namespace ? { namespace } : {}) },
    spec: { matchConstraints: rules('pods'), schedule },
  });
  const entry = (object: KubeObject) => new CelPolicyStore().upsertPolicy(object);

  it("writes RBACPermissionsGranted alone, in Kyverno's words for deleting policies, and keeps lastExecutionTime", () => {
    const stored = { ...dpol('old-pods', '*/5 * * * *'), status: { lastExecutionTime: '2026-11-29T06:55:00Z' } };
    expect(celStatusConditions(entry(stored))).toEqual({ webhook: false, reporting: true });
    const status = desiredCelPolicyStatus(entry(stored), { webhookConfigured: false }, T0);
    expect(status).toEqual({
      lastExecutionTime: '2026-11-29T06:55:00Z',
      conditionStatus: {
        ready: true,
        message: '',
        conditions: [
          {
            type: 'RBACPermissionsGranted',
            status: 'True',
            reason: 'Succeeded',
            message: 'Kyverno can access the resources targeted by this policy.',
            lastTransitionTime: '2026-11-29T07:00:00Z',
          },
        ],
      },
    });
    const denied = desiredCelPolicyStatus(
      entry(dpol('local', '@hourly', 'team')),
      { webhookConfigured: false, missingPermissions: ['list /v1, Resource=pods: '] },
      T0,
    );
    expect(denied.conditionStatus).toMatchObject({
      ready: false,
      conditions: [
        {
          type: 'RBACPermissionsGranted',
          status: 'False',
          message: 'Kyverno cannot access the resources targeted by this policy, missing permissions.',
        },
      ],
    });
  });

  it('is not ready, naming the problem, when the schedule does not parse', () => {
    const status = desiredCelPolicyStatus(entry(dpol('bad', 'every minute')), { webhookConfigured: false }, T0);
    expect(status.conditionStatus).toMatchObject({
      ready: false,
      conditions: [{ type: 'PolicyCached', status: 'False' }],
    });
    const message = (status.conditionStatus as { conditions: Array<{ message: string }> }).conditions[0]!.message;
    expect(message).toMatch(/^Policy is not cached: spec\.schedule: /);
  });
});

/** A store that keeps objects, bumps resourceVersions and can refuse the next write with a conflict. */
class MemoryStatusStore implements CelPolicyStatusStore {
  readonly objects = new Map<string, KubeObject>();
  writes = 0;
  conflicts = 0;
  async get(_kind: string, name: string): Promise<KubeObject | undefined> {
    return this.objects.get(name);
  }
  async replaceStatus(object: KubeObject): Promise<KubeObject> {
    const stored = this.objects.get(object.metadata.name!)!;
    if (this.conflicts > 0 || stored.metadata.resourceVersion !== object.metadata.resourceVersion) {
      this.conflicts = Math.max(0, this.conflicts - 1);
      stored.metadata.resourceVersion = String(Number(stored.metadata.resourceVersion) + 100);
      throw new KubeApiError(409, 'Conflict', 'the object has been modified');
    }
    this.writes += 1;
    const written = {
      ...stored,
      status: object.status!,
      metadata: { ...stored.metadata, resourceVersion: String(Number(stored.metadata.resourceVersion) + 1) },
    };
    this.objects.set(object.metadata.name!, written);
    return written;
  }
}

function harness(leader = { value: true }) {
  const cache = new CelPolicyStore();
  const store = new MemoryStatusStore();
  let published: ((p: WebhookPublication) => void) | undefined;
  const writer = new CelPolicyStatusWriter(
    {
      policies: { policyEntries: () => cache.policies(), onChange: () => () => undefined },
      publications: { onPublished: (listener) => ((published = listener), () => undefined) },
      store,
      leader: { isLeader: () => leader.value },
    },
    { debounceMs: 1_000_000, now: () => T0 },
  );
  writer.start();
  const add = (object: KubeObject) => {
    store.objects.set(object.metadata.name!, object);
    cache.upsertPolicy(object);
  };
  const publish = (keys: string[]) =>
    published!({ policies: new Map(keys.map((k) => [k, 1])), unresolvedKinds: new Map() });
  return { writer, store, add, publish, cache };
}

describe('CelPolicyStatusWriter', () => {
  it('waits for a publication, writes once, and a second pass (or a second leader) writes nothing', async () => {
    const { writer, store, add, publish, cache } = harness();
    add(vpol('p', {}));
    expect(await writer.sync()).toEqual({ status: 'skipped', reason: 'not-published' });
    publish(['ValidatingPolicy/p']);
    expect(await writer.sync()).toMatchObject({ status: 'done', written: ['ValidatingPolicy/p'] });
    cache.upsertPolicy(store.objects.get('p')!); // the informer brings the written status back
    expect(await writer.sync()).toMatchObject({ status: 'done', written: [], unchanged: 1 });
    expect(store.writes).toBe(1);
    expect((store.objects.get('p')!.status as { conditionStatus: { ready: boolean } }).conditionStatus.ready).toBe(
      true,
    );
    writer.stop();
  });

  it('writes nothing when not leading, and retries a conflict on a fresh read', async () => {
    const leader = { value: false };
    const { writer, store, add, publish } = harness(leader);
    add(vpol('p', {}));
    publish(['ValidatingPolicy/p']);
    expect(await writer.sync()).toEqual({ status: 'skipped', reason: 'not-leader' });
    expect(store.writes).toBe(0);
    leader.value = true;
    store.conflicts = 1;
    expect(await writer.sync()).toMatchObject({ status: 'done', written: ['ValidatingPolicy/p'] });
    expect(store.writes).toBe(1);
    writer.stop();
  });

  it('writes MutatingPolicies and GeneratingPolicies too, checking reporting permissions for both', async () => {
    const { writer, store, add, publish } = harness();
    add({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'MutatingPolicy',
      metadata: { name: 'm', uid: 'uid-m', generation: 1, resourceVersion: '1' },
      spec: {
        matchConstraints: rules('pods'),
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }],
      },
    });
    add({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'GeneratingPolicy',
      metadata: { name: 'g', uid: 'uid-g', generation: 1, resourceVersion: '1' },
      spec: { matchConstraints: rules('namespaces'), generate: [{ expression: 'generator.Apply("a", [])' }] },
    });
    publish(['MutatingPolicy/m', 'GeneratingPolicy/g']);
    expect(await writer.sync()).toMatchObject({ status: 'done', written: ['GeneratingPolicy/g', 'MutatingPolicy/m'] });
    const ready = (name: string) =>
      (store.objects.get(name)!.status as { conditionStatus: { ready: boolean } }).conditionStatus.ready;
    expect([ready('m'), ready('g')]).toEqual([true, true]);
    writer.stop();
  });
});
