import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../json';
import type { MatchResources, ResourceDescription, ResourceFilter, Rule } from '../policy/types';
import { compileRuleMatch } from './compiled-match';
import type { MatchRequest } from './request';
import { ruleMatches } from './rule-match';

const description: fc.Arbitrary<ResourceDescription> = fc.record(
  {
    kinds: fc.subarray(['Pod', 'v1/Pod', 'apps/v1/Deployment', 'Pod/exec', '*', 'ConfigMap', 'Namespace']),
    name: fc.constantFrom('', 'web', 'we*'),
    names: fc.subarray(['web', 'db-*']),
    namespaces: fc.subarray(['prod', 'team-?', 'default']),
    operations: fc.subarray(['CREATE', 'UPDATE', 'DELETE'] as const),
    selector: fc.constantFrom<NonNullable<ResourceDescription['selector']>>(
      { matchLabels: { app: 'nginx' } },
      { matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
      { matchLabels: { 'app*': '?ginx' } },
      { matchExpressions: [{ key: 'tier', operator: 'Bogus' as 'In' }] },
    ),
  },
  { requiredKeys: [] },
);
const filter: fc.Arbitrary<ResourceFilter> = fc.oneof(
  description.map((resources) => ({ resources })),
  fc.constant({}),
);
const block: fc.Arbitrary<MatchResources> = fc.oneof(
  fc.array(filter, { maxLength: 3 }).map((any) => ({ any })),
  fc.array(filter, { maxLength: 3 }).map((all) => ({ all })),
  description.map((resources) => ({ resources })),
  fc.constant({}),
);
const resource: fc.Arbitrary<KubeObject> = fc
  .record({
    kind: fc.constantFrom('Pod', 'Deployment', 'ConfigMap', 'Namespace'),
    name: fc.constantFrom('web', 'db-1', ''),
    namespace: fc.constantFrom('prod', 'team-a', ''),
    labels: fc.constantFrom<Record<string, string>>({}, { app: 'nginx' }, { app: 'nginx', tier: 'web' }),
  })
  .map(({ kind, name, namespace, labels }): KubeObject => ({
    apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}), labels },
  }));
const request: fc.Arbitrary<MatchRequest> = fc.record({
  resource,
  operation: fc.constantFrom('CREATE', 'UPDATE', 'DELETE' as const),
  subresource: fc.constantFrom('', 'exec', 'ephemeralcontainers'),
});

describe('compileRuleMatch', () => {
  it('decides as ruleMatches does, for match and exclude blocks of kinds, names, namespaces, operations and selectors', () => {
    fc.assert(
      fc.property(block, fc.option(block), request, fc.constantFrom(undefined, 'prod'), (match, exclude, req, ns) => {
        const rule: Rule = { name: 'r', match, ...(exclude ? { exclude } : {}) };
        const compiled = compileRuleMatch(rule);
        expect(compiled).toBeDefined();
        expect(compiled!(req, ns)).toBe(ruleMatches(rule, req, ns).matched);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves rules with user info, annotations or namespace selectors to the interpreter', () => {
    const rules: Rule[] = [
      { name: 'users', match: { any: [{ resources: { kinds: ['Pod'] }, subjects: [{ kind: 'User', name: 'a' }] }] } },
      { name: 'annotations', match: { resources: { kinds: ['Pod'], annotations: { a: 'b' } } } },
      {
        name: 'namespace-selector',
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        exclude: { any: [{ resources: { namespaceSelector: { matchLabels: { a: 'b' } } } }] },
      },
    ];
    expect(rules.map(compileRuleMatch)).toEqual([undefined, undefined, undefined]);
  });
});
