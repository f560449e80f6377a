import { Engine, type CompiledPolicy, type ResourceRequest } from '@edict/engine';
import { type KubeObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../testing/fixtures';
import { mayConcernSynchronize, synchronizeRequestsFor, type SynchronizeLookup } from './synchronize-requests';

const engine = new Engine();

const POLICY = (name: string, synchronize: boolean) => `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
spec:
  rules:
    - name: copy-secret
      match:
        any:
          - resources:
              kinds: [Namespace]
      generate:
        apiVersion: v1
        kind: Secret
        name: regcred
        namespace: "{{request.object.metadata.name}}"
        synchronize: ${synchronize}
        clone:
          namespace: default
          name: regcred
`;

const policies = compilePolicies(engine, [POLICY('sync', true), POLICY('nosync', false)].join('\n---\n'));

function copyIn(namespace: string, policy: string, triggerUid: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'regcred',
      namespace,
      labels: {
        'app.kubernetes.io/managed-by': 'kyverno',
        'generate.kyverno.io/policy-name': policy,
        'generate.kyverno.io/policy-namespace': '',
        'generate.kyverno.io/rule-name': 'copy-secret',
        'generate.kyverno.io/trigger-group': '',
        'generate.kyverno.io/trigger-version': 'v1',
        'generate.kyverno.io/trigger-kind': 'Namespace',
        'generate.kyverno.io/trigger-namespace': '',
        'generate.kyverno.io/trigger-uid': triggerUid,
        'generate.kyverno.io/clone-source': '',
        'generate.kyverno.io/source-group': '',
        'generate.kyverno.io/source-version': 'v1',
        'generate.kyverno.io/source-kind': 'Secret',
        'generate.kyverno.io/source-namespace': 'default',
        'generate.kyverno.io/source-name': 'regcred',
      },
    },
    data: { token: 'YQ==' },
  };
}

const SOURCE: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'regcred', namespace: 'default', labels: { 'generate.kyverno.io/clone-source': '' } },
  data: { token: 'YQ==' },
};

/** A typed fake: policies by key, and a list answered from fixed objects by their labels. */
class FakeLookup implements SynchronizeLookup {
  readonly listed: Record<string, string>[] = [];
  constructor(
    private readonly objects: KubeObject[],
    private readonly known: readonly CompiledPolicy[] = policies,
  ) {}
  policy(key: string) {
    return this.known.find((compiled) => compiled.key === key);
  }
  async list(apiVersion: string, kind: string, labels: Record<string, string>) {
    this.listed.push(labels);
    return this.objects.filter(
      (object) =>
        object.apiVersion === apiVersion &&
        object.kind === kind &&
        Object.entries(labels).every(([key, value]) => object.metadata?.labels?.[key] === value),
    );
  }
}

function change(operation: 'UPDATE' | 'DELETE', old: KubeObject, username = 'alice'): ResourceRequest {
  const edited = { ...old, data: { token: 'Yg==' } };
  return {
    operation,
    oldResource: old,
    ...(operation === 'UPDATE' ? { resource: edited } : {}),
    user: { userInfo: { username } },
  };
}

describe('synchronizeRequestsFor', () => {
  it('runs the rule again for the trigger of an edited or deleted synchronized copy, by uid', async () => {
    const lookup = new FakeLookup([]);
    for (const operation of ['UPDATE', 'DELETE'] as const) {
      const specs = await synchronizeRequestsFor(change(operation, copyIn('team-a', 'sync', 'ns-uid-a')), lookup);
      expect(specs).toHaveLength(1);
      expect(specs[0]).toMatchObject({
        requestType: 'generate',
        policy: 'sync',
        rule: 'copy-secret',
        deleteDownstream: false,
        synchronize: true,
        resource: { apiVersion: 'v1', kind: 'Namespace', uid: 'ns-uid-a' },
      });
      expect(specs[0]!.resource.name).toBeUndefined();
      expect(specs[0]!.context.admissionRequestInfo.admissionRequest).toBeUndefined();
    }
    expect(lookup.listed).toEqual([]);
  });

  it('leaves copies of rules without synchronize, of unknown policies, and new objects alone', async () => {
    const lookup = new FakeLookup([]);
    expect(await synchronizeRequestsFor(change('UPDATE', copyIn('team-a', 'nosync', 'u')), lookup)).toEqual([]);
    expect(await synchronizeRequestsFor(change('DELETE', copyIn('team-a', 'gone', 'u')), lookup)).toEqual([]);
    const created: ResourceRequest = { operation: 'CREATE', resource: copyIn('team-a', 'sync', 'u') };
    expect(await synchronizeRequestsFor(created, lookup)).toEqual([]);
  });

  it('ignores the background controller’s own writes', async () => {
    const request = change('UPDATE', copyIn('team-a', 'sync', 'u'), 'system:serviceaccount:kyverno:background');
    const options = { backgroundUsername: 'system:serviceaccount:kyverno:background' };
    expect(mayConcernSynchronize(request, options)).toBe(false);
    expect(await synchronizeRequestsFor(request, new FakeLookup([]), options)).toEqual([]);
  });

  it('propagates a clone source change to every synchronized copy, and deletes them with the source', async () => {
    const copies = [
      copyIn('team-a', 'sync', 'ns-uid-a'),
      copyIn('team-b', 'sync', 'ns-uid-b'),
      copyIn('team-c', 'nosync', 'ns-uid-c'),
    ];
    const lookup = new FakeLookup(copies);
    const updated = await synchronizeRequestsFor(change('UPDATE', SOURCE), lookup);
    expect(updated.map((spec) => [spec.resource.uid, spec.deleteDownstream])).toEqual([
      ['ns-uid-a', false],
      ['ns-uid-b', false],
    ]);
    expect(lookup.listed[0]).toEqual({
      'generate.kyverno.io/source-group': '',
      'generate.kyverno.io/source-version': 'v1',
      'generate.kyverno.io/source-kind': 'Secret',
      'generate.kyverno.io/source-namespace': 'default',
      'generate.kyverno.io/source-name': 'regcred',
    });
    const deleted = await synchronizeRequestsFor(change('DELETE', SOURCE), lookup);
    expect(
      deleted.map((spec) => [spec.resource.uid, spec.deleteDownstream, spec.ruleContext[0]!.deleteDownstream]),
    ).toEqual([
      ['ns-uid-a', true, true],
      ['ns-uid-b', true, true],
    ]);
  });

  it('leaves an object that is also a trigger of the rule to the trigger path', async () => {
    const selfCopy = compilePolicies(engine, POLICY('sync', true).replace('kinds: [Namespace]', 'kinds: [Secret]'));
    const specs = await synchronizeRequestsFor(
      change('UPDATE', SOURCE),
      new FakeLookup([copyIn('team-a', 'sync', 'ns-uid-a')], selfCopy),
    );
    expect(specs).toEqual([]);
  });
});
