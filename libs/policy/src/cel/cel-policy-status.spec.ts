import { describe, expect, it } from 'vitest';
import { compileCelPolicyException, compileValidatingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import { KubeApiError } from '@edict/kube';
import type { WebhookPublication } from '../status/policy-status';
import { celStatusMatches, desiredCelPolicyStatus } from './cel-policy-status';
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
});
