import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { attributesFor, namespace } from '../testing/attributes';
import type { MatchResources, NamedRuleWithOperations } from '../types';
import { matchesResources, matchResources } from './match-resources';

const pod = (labels: Record<string, string> = {}, ns = 'team-a'): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: ns, labels },
});
const deployment: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'api', namespace: 'team-a' },
};
const rule = (change: Partial<NamedRuleWithOperations> = {}): NamedRuleWithOperations => ({
  operations: ['CREATE', 'UPDATE'],
  apiGroups: [''],
  apiVersions: ['v1'],
  resources: ['pods'],
  ...change,
});
const teamA = namespace('team-a', { env: 'prod' });

describe('matchesResources: resource rules', () => {
  it('matches on operation, group, version and resource', () => {
    const match: MatchResources = { resourceRules: [rule()] };
    expect(matchesResources(match, attributesFor(pod()), teamA)).toBe(true);
    expect(matchesResources(match, attributesFor(pod(), { operation: 'DELETE' }), teamA)).toBe(false);
    expect(matchesResources(match, attributesFor(deployment), teamA)).toBe(false);
  });

  it('treats no resourceRules as every resource, and `*` operations as all', () => {
    expect(matchesResources({}, attributesFor(deployment), teamA)).toBe(true);
    expect(matchesResources(undefined, attributesFor(deployment), teamA)).toBe(true);
    const all = {
      resourceRules: [rule({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] })],
    };
    expect(matchesResources(all, attributesFor(deployment, { operation: 'DELETE' }), teamA)).toBe(true);
  });

  it('reads subresource patterns as kube does', () => {
    const status = attributesFor(pod(), { subresource: 'status', operation: 'UPDATE' });
    const main = attributesFor(pod(), { operation: 'UPDATE' });
    const only = (resources: string[]) => ({ resourceRules: [rule({ resources })] });
    expect(matchesResources(only(['pods']), status, teamA)).toBe(false);
    expect(matchesResources(only(['*']), status, teamA)).toBe(false);
    expect(matchesResources(only(['pods/status']), status, teamA)).toBe(true);
    expect(matchesResources(only(['pods/status']), main, teamA)).toBe(false);
    expect(matchesResources(only(['*/status']), status, teamA)).toBe(true);
    expect(matchesResources(only(['*/status']), main, teamA)).toBe(false);
    expect(matchesResources(only(['*/*']), status, teamA)).toBe(true);
    expect(matchesResources(only(['*/*']), main, teamA)).toBe(true);
    // A `*` subresource also matches the main resource (kube compares '' with '*' as a wildcard).
    expect(matchesResources(only(['pods/*']), main, teamA)).toBe(true);
    expect(matchesResources(only(['pods/*']), status, teamA)).toBe(true);
  });

  it('limits a rule to resourceNames when it has some', () => {
    const match = { resourceRules: [rule({ resourceNames: ['db', 'web'] })] };
    expect(matchesResources(match, attributesFor(pod()), teamA)).toBe(true);
    expect(matchesResources(match, attributesFor(pod(), { name: 'cache' }), teamA)).toBe(false);
    // A generated name is not known yet: the rule does not match.
    expect(matchesResources(match, attributesFor(pod(), { name: '' }), teamA)).toBe(false);
  });

  it('applies scope, with Namespace objects cluster-scoped', () => {
    const ns = attributesFor(namespace('team-a'));
    const clusterRole = attributesFor({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'x' },
    });
    const any = { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] };
    const scoped = (scope: '*' | 'Cluster' | 'Namespaced') => ({ resourceRules: [{ ...any, scope }] });
    expect(matchesResources(scoped('Namespaced'), attributesFor(pod()), teamA)).toBe(true);
    expect(matchesResources(scoped('Namespaced'), ns, null)).toBe(false);
    expect(matchesResources(scoped('Namespaced'), clusterRole, null)).toBe(false);
    expect(matchesResources(scoped('Cluster'), ns, null)).toBe(true);
    expect(matchesResources(scoped('Cluster'), clusterRole, null)).toBe(true);
    expect(matchesResources(scoped('Cluster'), attributesFor(pod()), teamA)).toBe(false);
    expect(matchesResources(scoped('*'), attributesFor(pod()), teamA)).toBe(true);
  });

  it('excludes what excludeResourceRules cover, by name too', () => {
    const match = { resourceRules: [rule()], excludeResourceRules: [rule({ resourceNames: ['web'] })] };
    expect(matchesResources(match, attributesFor(pod()), teamA)).toBe(false);
    expect(matchesResources(match, attributesFor(pod(), { name: 'other' }), teamA)).toBe(true);
  });
});

describe('matchesResources: matchPolicy', () => {
  const v1beta1 = {
    resourceRules: [rule({ apiGroups: ['apps'], apiVersions: ['v1beta1'], resources: ['deployments'] })],
  };

  it('Equivalent (the default) matches another version of the resource, and says which', () => {
    const decision = matchResources(v1beta1, attributesFor(deployment), teamA);
    expect(decision).toEqual({
      matches: true,
      resource: { group: 'apps', version: 'v1beta1', resource: 'deployments' },
      kind: { group: 'apps', version: 'v1beta1', kind: 'Deployment' },
    });
  });

  it('Exact does not', () => {
    expect(matchesResources({ ...v1beta1, matchPolicy: 'Exact' }, attributesFor(deployment), teamA)).toBe(false);
  });

  it('takes the equivalents a server knows when given', () => {
    const extensions = {
      resourceRules: [rule({ apiGroups: ['extensions'], apiVersions: ['v1beta1'], resources: ['deployments'] })],
    };
    expect(matchesResources(extensions, attributesFor(deployment), teamA, { equivalents: () => [] })).toBe(false);
    expect(matchesResources(extensions, attributesFor(deployment), teamA)).toBe(true);
  });
});

describe('matchesResources: selectors', () => {
  it('matches the namespaceSelector against the namespace object', () => {
    const match = { namespaceSelector: { matchLabels: { env: 'prod' } } };
    expect(matchesResources(match, attributesFor(pod()), teamA)).toBe(true);
    expect(matchesResources(match, attributesFor(pod()), namespace('team-a', { env: 'dev' }))).toBe(false);
  });

  it('always matches cluster-scoped objects other than Namespaces', () => {
    const node = attributesFor({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    expect(matchesResources({ namespaceSelector: { matchLabels: { env: 'prod' } } }, node, null)).toBe(true);
  });

  it('matches a Namespace being created or updated by its own labels, and one being deleted by its stored object', () => {
    const match = {
      namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In' as const, values: ['prod'] }] },
    };
    expect(matchesResources(match, attributesFor(namespace('team-a', { env: 'prod' })), null)).toBe(true);
    expect(matchesResources(match, attributesFor(namespace('team-a', { env: 'dev' })), teamA)).toBe(false);
    const deleting = attributesFor(namespace('team-a'), { operation: 'DELETE', object: null, oldObject: teamA });
    expect(matchesResources(match, deleting, null)).toBe(true);
  });

  it("reports kube's not-found error when the namespace is missing, only for requests the rules cover", () => {
    const match = { namespaceSelector: { matchLabels: { env: 'prod' } }, resourceRules: [rule()] };
    expect(matchResources(match, attributesFor(pod()), null)).toEqual({
      matches: false,
      error: 'namespaces "team-a" not found',
    });
    expect(matchResources(match, attributesFor(deployment), null)).toEqual({ matches: false });
    // An empty selector needs no namespace.
    expect(matchesResources({ namespaceSelector: {} }, attributesFor(pod()), null)).toBe(true);
  });

  it('matches the objectSelector against the new or the old object', () => {
    const match = { objectSelector: { matchLabels: { app: 'web' } } };
    expect(matchesResources(match, attributesFor(pod({ app: 'web' })), teamA)).toBe(true);
    expect(matchesResources(match, attributesFor(pod({ app: 'db' })), teamA)).toBe(false);
    const relabel = attributesFor(pod({ app: 'db' }), { operation: 'UPDATE', oldObject: pod({ app: 'web' }) });
    expect(matchesResources(match, relabel, teamA)).toBe(true);
    const deleted = attributesFor(pod(), { operation: 'DELETE', object: null, oldObject: pod({ app: 'web' }) });
    expect(matchesResources(match, deleted, teamA)).toBe(true);
  });

  it('refuses an invalid selector with an error', () => {
    const match = { objectSelector: { matchExpressions: [{ key: 'app', operator: 'In' as const, values: [] }] } };
    const decision = matchResources(match, attributesFor(pod()), teamA);
    expect(decision.matches).toBe(false);
    expect('error' in decision && decision.error).toMatch(/^Internal error occurred: /);
  });
});
