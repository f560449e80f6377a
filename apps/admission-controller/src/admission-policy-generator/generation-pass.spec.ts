import type { Policy, PolicyException } from '@edict/engine';
import type {
  CelPolicyExceptionObject,
  GeneratedObject,
  KindResolver,
  MutatingAdmissionPolicyVersion,
  MutatingPolicyObject,
  ValidatingPolicyObject,
} from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import type { EventInput } from '@edict/kube';
import { describe, expect, it } from 'vitest';
import {
  GenerationPass,
  type GeneratedKind,
  type GeneratorStatus,
  type GeneratorStore,
  type SourceRef,
} from './generation-pass';
import { withStatus } from './kube-generator-store';

/** An in-memory GeneratorStore: what a pass reads, and every write it makes. */
class FakeStore implements GeneratorStore {
  cpols: Policy[] = [];
  polexes: PolicyException[] = [];
  vpols: ValidatingPolicyObject[] = [];
  mpols: MutatingPolicyObject[] = [];
  celexes: CelPolicyExceptionObject[] = [];
  objects = new Map<string, KubeObject>();
  statuses = new Map<string, GeneratorStatus>();
  writes: string[] = [];
  version: MutatingAdmissionPolicyVersion | undefined = 'v1beta1';
  /** Resources this controller may not write. */
  forbidden = new Set<string>();
  private nextVersion = 1;

  clusterPolicies(): readonly Policy[] {
    return this.cpols;
  }
  policyExceptions(): readonly PolicyException[] {
    return this.polexes;
  }
  validatingPolicies(): readonly ValidatingPolicyObject[] {
    return this.vpols;
  }
  mutatingPolicies(): readonly MutatingPolicyObject[] {
    return this.mpols;
  }
  celExceptions(): readonly CelPolicyExceptionObject[] {
    return this.celexes;
  }
  existing(kind: GeneratedKind): readonly KubeObject[] {
    return [...this.objects.values()].filter((o) => o.kind === kind);
  }
  kindResolver(): Promise<KindResolver> {
    const kinds: Record<string, { group: string; version: string; resource: string }> = {
      Pod: { group: '', version: 'v1', resource: 'pods' },
      Deployment: { group: 'apps', version: 'v1', resource: 'deployments' },
    };
    return Promise.resolve((kind) => (kinds[kind] ? [kinds[kind]] : []));
  }
  permitted(resource: string): Promise<boolean> {
    return Promise.resolve(!this.forbidden.has(resource));
  }
  mutatingVersion(): MutatingAdmissionPolicyVersion | undefined {
    return this.version;
  }
  create(object: GeneratedObject): Promise<void> {
    this.writes.push(`create ${object.kind}/${object.metadata.name}`);
    this.store(object);
    return Promise.resolve();
  }
  replace(desired: GeneratedObject): Promise<void> {
    this.writes.push(`replace ${desired.kind}/${desired.metadata.name}`);
    this.store(desired);
    return Promise.resolve();
  }
  remove(object: KubeObject): Promise<void> {
    this.writes.push(`delete ${object.kind}/${object.metadata?.name}`);
    this.objects.delete(`${object.kind}/${object.metadata?.name}`);
    return Promise.resolve();
  }
  writeStatus(source: SourceRef, status: GeneratorStatus): Promise<void> {
    const key = `${source.kind}/${source.name}`;
    const before = this.statuses.get(key);
    if (before?.generated !== status.generated || before?.message !== status.message) {
      this.writes.push(`status ${key}`);
      this.statuses.set(key, status);
    }
    return Promise.resolve();
  }
  private store(object: GeneratedObject): void {
    // The API server defaults fields the generator leaves out; the pass must not fight them.
    const stored = JSON.parse(JSON.stringify(object)) as KubeObject & { spec: Record<string, unknown> };
    if (object.kind.endsWith('Policy')) stored.spec.failurePolicy ??= 'Fail';
    stored.metadata = { ...stored.metadata, resourceVersion: String(this.nextVersion++) };
    this.objects.set(`${object.kind}/${object.metadata.name}`, stored);
  }
}

const ON = { generateValidatingAdmissionPolicy: true, generateMutatingAdmissionPolicy: true };

function cpol(name: string, generate = true): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name, uid: `uid-${name}` },
    spec: {
      rules: [
        {
          name: 'rule',
          match: { any: [{ resources: { kinds: ['Deployment'] } }] },
          validate: { failureAction: 'Enforce', cel: { generate, expressions: [{ expression: 'true' }] } as never },
        },
      ],
    },
  };
}

function vpol(name: string, enabled: boolean): ValidatingPolicyObject {
  return {
    kind: 'ValidatingPolicy',
    metadata: { name, uid: `uid-${name}` },
    spec: {
      autogen: { validatingAdmissionPolicy: { enabled } },
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  };
}

function mpol(name: string, enabled: boolean): MutatingPolicyObject {
  return {
    kind: 'MutatingPolicy',
    metadata: { name, uid: `uid-${name}` },
    spec: {
      autogen: { mutatingAdmissionPolicy: { enabled } },
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
        ],
      },
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }] as never,
    },
  };
}

describe('GenerationPass', () => {
  it('creates each pair once: a second pass over the same cluster writes nothing', async () => {
    const store = new FakeStore();
    store.cpols = [cpol('a')];
    store.vpols = [vpol('b', true)];
    store.mpols = [mpol('c', true)];
    await new GenerationPass(store, ON).run();
    expect(store.writes.sort()).toEqual([
      'create MutatingAdmissionPolicy/mpol-c',
      'create MutatingAdmissionPolicyBinding/mpol-c-binding',
      'create ValidatingAdmissionPolicy/cpol-a',
      'create ValidatingAdmissionPolicy/vpol-b',
      'create ValidatingAdmissionPolicyBinding/cpol-a-binding',
      'create ValidatingAdmissionPolicyBinding/vpol-b-binding',
      'status ClusterPolicy/a',
      'status MutatingPolicy/c',
      'status ValidatingPolicy/b',
    ]);
    expect(store.objects.get('MutatingAdmissionPolicy/mpol-c')?.apiVersion).toBe(
      'admissionregistration.k8s.io/v1beta1',
    );
    expect(store.statuses.get('ClusterPolicy/a')).toEqual({ generated: true, message: '' });
    store.writes = [];
    await new GenerationPass(store, ON).run();
    expect(store.writes).toEqual([]);
  });

  it('updates a changed pair, deletes it when the policy stops being eligible or is deleted, and says why', async () => {
    const store = new FakeStore();
    store.cpols = [cpol('a')];
    store.vpols = [vpol('b', true)];
    await new GenerationPass(store, ON).run();
    store.cpols[0].spec.rules[0].validate!.failureAction = 'Audit';
    store.writes = [];
    await new GenerationPass(store, ON).run();
    expect(store.writes).toEqual(['replace ValidatingAdmissionPolicyBinding/cpol-a-binding']);
    expect(store.objects.get('ValidatingAdmissionPolicyBinding/cpol-a-binding')?.spec).toMatchObject({
      validationActions: ['Audit', 'Warn'],
    });
    store.cpols = [cpol('a', false)];
    store.vpols = [];
    store.writes = [];
    await new GenerationPass(store, ON).run();
    expect(store.writes.sort()).toEqual([
      'delete ValidatingAdmissionPolicy/cpol-a',
      'delete ValidatingAdmissionPolicy/vpol-b',
      'delete ValidatingAdmissionPolicyBinding/cpol-a-binding',
      'delete ValidatingAdmissionPolicyBinding/vpol-b-binding',
      'status ClusterPolicy/a',
    ]);
    expect(store.statuses.get('ClusterPolicy/a')).toEqual({
      generated: false,
      message: 'skip generating ValidatingAdmissionPolicy: validate.cel.generate is not set to true.',
    });
  });

  it('with the flags off reconciles no VAP, and only MutatingPolicies that ask for a MAP themselves', async () => {
    const store = new FakeStore();
    store.cpols = [cpol('a')];
    store.mpols = [mpol('asks', true), mpol('quiet', false)];
    await new GenerationPass(store, {
      generateValidatingAdmissionPolicy: false,
      generateMutatingAdmissionPolicy: false,
    }).run();
    expect(store.writes.sort()).toEqual([
      'create MutatingAdmissionPolicy/mpol-asks',
      'create MutatingAdmissionPolicyBinding/mpol-asks-binding',
      'status MutatingPolicy/asks',
    ]);
  });

  it('writes why when no MutatingAdmissionPolicy version is served, and leaves objects it did not generate alone', async () => {
    const store = new FakeStore();
    store.version = undefined;
    store.mpols = [mpol('c', true)];
    store.objects.set('ValidatingAdmissionPolicy/mine', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'mine' },
    });
    await new GenerationPass(store, ON).run();
    expect(store.statuses.get('MutatingPolicy/c')).toEqual({
      generated: false,
      message:
        'skip generating MutatingAdmissionPolicy: requested but no MutatingAdmissionPolicy API/informers are available.',
    });
    expect(store.objects.has('ValidatingAdmissionPolicy/mine')).toBe(true);
  });

  it('turns a matching PolicyException into exclusions, and a refused one into the status message', async () => {
    const store = new FakeStore();
    store.cpols = [cpol('a')];
    const exception: PolicyException = {
      apiVersion: 'kyverno.io/v2',
      kind: 'PolicyException',
      metadata: { name: 'ex', namespace: 'default' },
      spec: {
        exceptions: [{ policyName: 'a', ruleNames: ['rule'] }],
        match: { any: [{ resources: { kinds: ['Deployment'], names: ['tool'] } }] },
      },
    };
    store.polexes = [exception];
    await new GenerationPass(store, ON).run();
    expect(store.objects.get('ValidatingAdmissionPolicy/cpol-a')?.spec).toMatchObject({
      matchConstraints: { excludeResourceRules: [{ resourceNames: ['tool'], resources: ['deployments'] }] },
    });
    store.polexes = [{ ...exception, spec: { ...exception.spec, conditions: { any: [] } } }];
    await new GenerationPass(store, ON).run();
    expect(store.objects.has('ValidatingAdmissionPolicy/cpol-a')).toBe(false);
    expect(store.statuses.get('ClusterPolicy/a')?.message).toBe(
      'skip generating ValidatingAdmissionPolicy: Conditions in PolicyException is not applicable.',
    );
  });
});

describe('GenerationPass events', () => {
  it("emits Kyverno's two PolicyApplied Events per generated VAP, on the source policy, only when it wrote the pair", async () => {
    const store = new FakeStore();
    store.cpols = [cpol('a')];
    store.vpols = [vpol('b', true)];
    store.mpols = [mpol('c', true)];
    const events: EventInput[] = [];
    const pass = () => new GenerationPass(store, ON, { emit: (list) => events.push(...list) }).run();
    await pass();
    expect(events.filter((e) => e.regarding.name === 'a')).toEqual([
      {
        regarding: { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name: 'a', uid: 'uid-a' },
        related: {
          apiVersion: 'admissionregistration.k8s.io/v1alpha1',
          kind: 'ValidatingAdmissionPolicy',
          name: 'cpol-a',
        },
        type: 'Normal',
        reason: 'PolicyApplied',
        action: 'Resource Generated',
        note: 'successfully generated validating admission policy cpol-a from policy a',
      },
      {
        regarding: { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name: 'a', uid: 'uid-a' },
        related: {
          apiVersion: 'admissionregistration.k8s.io/v1alpha1',
          kind: 'ValidatingAdmissionPolicyBinding',
          name: 'cpol-a-binding',
        },
        type: 'Normal',
        reason: 'PolicyApplied',
        action: 'Resource Generated',
        note: 'successfully generated validating admission policy binding cpol-a-binding from policy a',
      },
    ]);
    expect(events.filter((e) => e.regarding.name === 'b').map((e) => [e.regarding.kind, e.note])).toEqual([
      ['ValidatingPolicy', 'successfully generated validating admission policy vpol-b from policy b'],
      ['ValidatingPolicy', 'successfully generated validating admission policy binding vpol-b-binding from policy b'],
    ]);
    // No Event for the MutatingAdmissionPolicy (Kyverno emits none), none from a pass that changes nothing.
    expect(events).toHaveLength(4);
    await pass();
    expect(events).toHaveLength(4);
  });
});

describe('GenerationPass without permissions', () => {
  it("writes Kyverno's insufficient-permissions message and generates nothing", async () => {
    const store = new FakeStore();
    store.cpols = [cpol('a')];
    store.mpols = [mpol('c', true)];
    store.forbidden = new Set(['validatingadmissionpolicybindings', 'mutatingadmissionpolicies']);
    await new GenerationPass(store, ON).run();
    expect(store.objects.size).toBe(0);
    expect(store.statuses.get('ClusterPolicy/a')).toEqual({
      generated: false,
      message: 'insufficient permissions to generate ValidatingAdmissionPolicyBindings',
    });
    expect(store.statuses.get('MutatingPolicy/c')).toEqual({
      generated: false,
      message: 'insufficient permissions to generate MutatingAdmissionPolicies',
    });
  });
});

describe('withStatus', () => {
  it("writes a ClusterPolicy's validatingadmissionpolicy and a CEL policy's generated and message, only when they differ", () => {
    expect(withStatus('ClusterPolicy', { conditions: [] }, { generated: true, message: '' })).toEqual({
      conditions: [],
      validatingadmissionpolicy: { generated: true, message: '' },
    });
    expect(
      withStatus(
        'ClusterPolicy',
        { validatingadmissionpolicy: { generated: true, message: '' } },
        { generated: true, message: '' },
      ),
    ).toBeUndefined();
    expect(
      withStatus('ValidatingPolicy', { conditionStatus: { ready: true } }, { generated: false, message: 'why' }),
    ).toEqual({ generated: false, conditionStatus: { ready: true, message: 'why' } });
  });
});
