import { Engine, type ResourceRequest } from '@edict/engine';
import { type KubeObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../testing/fixtures';
import { updateRequestsFor } from './update-requests';

const engine = new Engine();

const POLICY = (name: string, synchronize: boolean) => `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
spec:
  rules:
    - name: default-deny
      match:
        any:
          - resources:
              kinds: [Namespace]
              selector:
                matchLabels:
                  protected: "true"
      generate:
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        name: default-deny
        namespace: "{{request.object.metadata.name}}"
        synchronize: ${synchronize}
        data:
          spec:
            podSelector: {}
`;

const policies = compilePolicies(engine, [POLICY('sync', true), POLICY('nosync', false)].join('\n---\n'));

const namespace = (labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team-a', uid: 'ns-uid', labels },
});

const summary = (specs: Awaited<ReturnType<typeof updateRequestsFor>>) =>
  specs.map((spec) => [spec.policy, spec.deleteDownstream, spec.ruleContext[0]!.deleteDownstream, spec.resource.uid]);

describe('updateRequestsFor: synchronized downstream of a trigger', () => {
  it('asks to delete the downstream of a synchronized rule when its trigger is deleted', async () => {
    const request: ResourceRequest = { operation: 'DELETE', oldResource: namespace({ protected: 'true' }) };
    expect(summary(await updateRequestsFor(request, policies, engine))).toEqual([['sync', true, true, 'ns-uid']]);
  });

  it('asks to delete it when an update makes the trigger stop matching, and not otherwise', async () => {
    const unmatched: ResourceRequest = {
      operation: 'UPDATE',
      oldResource: namespace({ protected: 'true' }),
      resource: namespace({ protected: 'false' }),
    };
    expect(summary(await updateRequestsFor(unmatched, policies, engine))).toEqual([['sync', true, true, 'ns-uid']]);
    const stillMatching: ResourceRequest = {
      operation: 'UPDATE',
      oldResource: namespace({ protected: 'true' }),
      resource: namespace({ protected: 'true', team: 'a' }),
    };
    expect(summary(await updateRequestsFor(stillMatching, policies, engine))).toEqual([
      ['sync', false, false, 'ns-uid'],
      ['nosync', false, false, 'ns-uid'],
    ]);
    const neverMatched: ResourceRequest = {
      operation: 'UPDATE',
      oldResource: namespace({}),
      resource: namespace({ team: 'a' }),
    };
    expect(await updateRequestsFor(neverMatched, policies, engine)).toEqual([]);
  });
});
