import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import type { MatchRequest } from '../match';
import type { PolicyException, ResourceFilter } from '../policy/types';
import { EvaluationContext } from '../variables';
import { matchingExceptions } from './match-exceptions';

function exception(name: string, policyName: string, ruleNames: string[], ...any: ResourceFilter[]): PolicyException {
  return {
    apiVersion: 'kyverno.io/v2',
    kind: 'PolicyException',
    metadata: { name, namespace: 'kyverno' },
    spec: { exceptions: [{ policyName, ruleNames }], match: { any } },
  };
}

const pods = (...namespaces: string[]): ResourceFilter => ({
  resources: { kinds: ['Pod'], ...(namespaces.length > 0 ? { namespaces } : {}) },
});

function podIn(namespace: string): MatchRequest {
  const resource: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace } };
  return { resource, operation: 'CREATE' };
}

const names = (found: readonly PolicyException[]) => found.map((item) => item.metadata.name);
const ctx = new EvaluationContext();

describe('matchingExceptions', () => {
  it('gives the exceptions for the policy, rule and namespace in list order, limited or not', () => {
    const list = [
      exception('anywhere', 'psp', ['r'], pods()),
      exception('prod-only', 'psp', ['r'], pods('prod')),
      exception('other-policy', 'other', ['r'], pods()),
      exception('dev-only', 'psp', ['*'], pods('dev')),
      exception('team-namespaces', 'psp', ['r'], pods('team-*')),
      exception('prod-or-dev', 'psp', ['r'], pods('dev'), pods('prod')),
      exception('other-rule', 'psp', ['s'], pods('prod')),
      exception('all-pods', 'psp', ['r'], pods()),
    ];
    expect(names(matchingExceptions(list, 'psp', 'r', podIn('prod'), ctx))).toEqual([
      'anywhere',
      'prod-only',
      'prod-or-dev',
      'all-pods',
    ]);
    expect(names(matchingExceptions(list, 'psp', 'r', podIn('dev'), ctx))).toEqual([
      'anywhere',
      'dev-only',
      'prod-or-dev',
      'all-pods',
    ]);
    expect(names(matchingExceptions(list, 'psp', 'r', podIn('team-a'), ctx))).toEqual([
      'anywhere',
      'team-namespaces',
      'all-pods',
    ]);
    expect(names(matchingExceptions(list, 'psp', 's', podIn('prod'), ctx))).toEqual(['other-rule']);
  });

  it("covers a rule's autogen copies", () => {
    const list = [exception('e', 'psp', ['check-*'], pods('prod'))];
    for (const rule of ['check-a', 'autogen-check-a', 'autogen-cronjob-check-a']) {
      expect(names(matchingExceptions(list, 'psp', rule, podIn('prod'), ctx))).toEqual(['e']);
    }
    expect(names(matchingExceptions(list, 'psp', 'autogen-other', podIn('prod'), ctx))).toEqual([]);
  });

  it('checks the conditions of the exceptions that match', () => {
    const guarded = exception('guarded', 'psp', ['r'], pods('prod'));
    guarded.spec.conditions = { all: [{ key: '{{ request.operation }}', operator: 'Equals', value: 'UPDATE' }] };
    const request = new EvaluationContext({ request: { operation: 'CREATE' } });
    expect(names(matchingExceptions([guarded], 'psp', 'r', podIn('prod'), request))).toEqual([]);
    const update = new EvaluationContext({ request: { operation: 'UPDATE' } });
    expect(names(matchingExceptions([guarded], 'psp', 'r', podIn('prod'), update))).toEqual(['guarded']);
  });

  it('answers from the list it is given: a changed list is indexed again', () => {
    const before = [exception('e', 'psp', ['r'], pods('prod'))];
    expect(names(matchingExceptions(before, 'psp', 'r', podIn('prod'), ctx))).toEqual(['e']);
    const after = [exception('f', 'psp', ['r'], pods('dev'))];
    expect(names(matchingExceptions(after, 'psp', 'r', podIn('prod'), ctx))).toEqual([]);
    expect(names(matchingExceptions(after, 'psp', 'r', podIn('dev'), ctx))).toEqual(['f']);
  });
});
