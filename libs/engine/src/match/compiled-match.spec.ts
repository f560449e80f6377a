import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import type { MatchResources, ResourceDescription, ResourceFilter, Rule } from '../policy/types';
import { compileExceptionMatch, compileKindGate, compileRuleMatch } from './compiled-match';
import { matchesExceptionResources } from './exception-match';
import { matchedNamespace } from './resource-filter';
import { gvkOf, type MatchRequest } from './request';
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

describe('compileExceptionMatch', () => {
  it('decides as matchesExceptionResources does, and names every namespace where it can hold', () => {
    let limited = 0;
    fc.assert(
      fc.property(block, request, (match, req) => {
        const compiled = compileExceptionMatch(match);
        expect(compiled).toBeDefined();
        const matches = compiled!.matches(req);
        expect(matches).toBe(matchesExceptionResources(match, req));
        if (!compiled!.namespaces) return;
        limited++;
        if (matches) expect(compiled!.namespaces.has(matchedNamespace(req))).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(limited).toBeGreaterThan(300);
  });

  it('limits namespaces only where no filter can hold elsewhere', () => {
    const namespacesOf = (match: MatchResources) => {
      const names = compileExceptionMatch(match)!.namespaces;
      return names && [...names].sort();
    };
    const plain = (...namespaces: string[]): ResourceFilter => ({ resources: { kinds: ['Pod'], namespaces } });
    expect(namespacesOf({ any: [plain('a'), plain('b', 'c')] })).toEqual(['a', 'b', 'c']);
    expect(namespacesOf({ any: [plain('a'), { resources: { kinds: ['Pod'] } }] })).toBeUndefined();
    expect(namespacesOf({ any: [plain('a'), plain('team-*')] })).toBeUndefined();
    expect(namespacesOf({ all: [{ resources: { kinds: ['Pod'] } }, plain('a')] })).toEqual(['a']);
    expect(namespacesOf({ all: [plain('a'), {}] })).toEqual([]);
    expect(namespacesOf({})).toEqual([]);
  });

  it('leaves exceptions with user info, annotations or namespace selectors to the interpreter', () => {
    const users: MatchResources = { any: [{ resources: { kinds: ['Pod'] }, subjects: [{ kind: 'User', name: 'a' }] }] };
    const selector: MatchResources = { any: [{ resources: { namespaceSelector: { matchLabels: { a: 'b' } } } }] };
    expect([users, selector].map(compileExceptionMatch)).toEqual([undefined, undefined]);
  });
});

describe('compileKindGate', () => {
  it('never turns away a request that the matcher accepts', () => {
    let turnedAway = 0;
    fc.assert(
      fc.property(block, fc.option(block), request, fc.constantFrom(undefined, 'prod'), (match, exclude, req, ns) => {
        const rule: Rule = { name: 'r', match, ...(exclude ? { exclude } : {}) };
        const gate = compileKindGate(rule)!;
        expect(gate).toBeDefined();
        if (gate(gvkOf(req.resource), req.subresource ?? '')) return;
        turnedAway++;
        expect(compileRuleMatch(rule)!(req, ns)).toBe(false);
      }),
      { numRuns: 2000 },
    );
    expect(turnedAway).toBeGreaterThan(100);
  });

  it('turns away kinds that no filter names, and keeps any kind a filter does not restrict', () => {
    const pod = { group: '', version: 'v1', kind: 'Pod' };
    const deployments: Rule = { name: 'd', match: { any: [{ resources: { kinds: ['Deployment', 'StatefulSet'] } }] } };
    expect(compileKindGate(deployments)!(pod, '')).toBe(false);
    expect(compileKindGate(deployments)!({ group: 'apps', version: 'v1', kind: 'Deployment' }, '')).toBe(true);
    const exec: Rule = { name: 'e', match: { resources: { kinds: ['Pod/exec'] } } };
    expect(compileKindGate(exec)!(pod, '')).toBe(false);
    expect(compileKindGate(exec)!(pod, 'exec')).toBe(true);
    const unrestricted: Rule = { name: 'u', match: { any: [{ resources: { names: ['web'] } }] } };
    expect(compileKindGate(unrestricted)!(pod, '')).toBe(true);
    const allOf: Rule = {
      name: 'a',
      match: { all: [{ resources: { kinds: ['Pod'] } }, { resources: { kinds: ['ConfigMap'] } }] },
    };
    expect(compileKindGate(allOf)!(pod, '')).toBe(false);
    const users: Rule = {
      name: 'users',
      match: { any: [{ resources: { kinds: ['Pod'] }, subjects: [{ kind: 'User', name: 'a' }] }] },
    };
    expect(compileKindGate(users)).toBeUndefined();
  });
});
