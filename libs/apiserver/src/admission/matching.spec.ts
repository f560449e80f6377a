// Webhook matching against kube-apiserver's own rules (k8s.io/apiserver admission/plugin/webhook/
// predicates: rules/rules.go, namespace/matcher.go, object/matcher.go), case by case.
import type { JsonObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { BUILTIN_TYPES } from '../registry/builtin-types';
import type { ResourceType } from '../registry/resource-type';
import { ApiError } from '../status';
import { namespaceSelectorMatches, objectSelectorMatches, ruleMatches, type NamespaceLabels } from './matching';
import type { AdmissionAttributes } from './types';
import type { RuleWithOperations, Webhook } from './webhooks';

function type(group: string, plural: string): ResourceType {
  const found = BUILTIN_TYPES.find((t) => t.group === group && t.plural === plural);
  if (!found) throw new Error(`no built-in ${group}/${plural}`);
  return found;
}

const PODS = type('', 'pods');
const NAMESPACES = type('', 'namespaces');
const NODES = type('', 'nodes');
const DEPLOYMENTS = type('apps', 'deployments');

function request(
  resource: ResourceType,
  subresource = '',
  change: Partial<Omit<AdmissionAttributes, 'type' | 'subresource'>> = {},
): AdmissionAttributes {
  return {
    operation: 'CREATE',
    type: resource,
    subresource,
    name: 'x',
    namespace: resource.namespaced ? 'shop' : '',
    dryRun: false,
    options: {},
    userInfo: { username: 'u' },
    ...change,
  };
}

function rule(resources: string[], scope = '*', change: Partial<RuleWithOperations> = {}): RuleWithOperations {
  return { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources, scope, ...change };
}

function webhook(change: Partial<Webhook> = {}): Webhook {
  return {
    kind: 'validating',
    configurationName: 'c',
    name: 'w.edict.test',
    rules: [],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    timeoutSeconds: 10,
    reinvocationPolicy: 'Never',
    matchConditions: [],
    ...change,
  };
}

describe('rules (rules.go)', () => {
  // resource(): a rule entry splits at the first '/'; `*` or the name, and `*` or the exact subresource ('' for none).
  it.each([
    ['pods', '', ['pods'], true],
    ['pods', 'status', ['pods'], false],
    ['pods', 'status', ['pods/status'], true],
    ['pods', '', ['pods/status'], false],
    ['pods', 'exec', ['pods/*'], true],
    ['pods', '', ['pods/*'], true], // `*` as the subresource also matches none
    ['deployments', 'scale', ['pods/*'], false],
    ['pods', '', ['*'], true],
    ['pods', 'status', ['*'], false],
    ['pods', 'status', ['*/status'], true],
    ['deployments', 'status', ['*/status'], true],
    ['pods', '', ['*/status'], false],
    ['pods', 'exec', ['*/status'], false],
    ['pods', 'exec', ['*/*'], true],
    ['pods', '', ['*/*'], true],
    ['pods', 'ephemeralcontainers', ['configmaps', 'pods/ephemeralcontainers'], true],
  ])('%s/%s against %j: %s', (plural, subresource, resources, expected) => {
    const resource = plural === 'pods' ? PODS : DEPLOYMENTS;
    expect(ruleMatches(rule(resources), request(resource, subresource))).toBe(expected);
  });

  it('operations, groups and versions: the value itself or `*`', () => {
    const deployment = request(DEPLOYMENTS, '', { operation: 'UPDATE' });
    expect(ruleMatches(rule(['deployments'], '*', { operations: ['CREATE'] }), deployment)).toBe(false);
    expect(ruleMatches(rule(['deployments'], '*', { operations: ['UPDATE'] }), deployment)).toBe(true);
    expect(ruleMatches(rule(['deployments'], '*', { apiGroups: [''] }), deployment)).toBe(false);
    expect(ruleMatches(rule(['deployments'], '*', { apiGroups: ['apps'] }), deployment)).toBe(true);
    expect(ruleMatches(rule(['deployments'], '*', { apiVersions: ['v1beta1'] }), deployment)).toBe(false);
  });

  // scope(): Namespaced needs a namespace and not a Namespace object; Cluster is either of those.
  it.each([
    [PODS, '*', true],
    [PODS, 'Namespaced', true],
    [PODS, 'Cluster', false],
    [NODES, 'Namespaced', false],
    [NODES, 'Cluster', true],
    [NAMESPACES, 'Namespaced', false],
    [NAMESPACES, 'Cluster', true],
  ])('%s in scope %s: %s', (resource, scope, expected) => {
    // A Namespace request carries its own name as the namespace, as kube's does.
    const attributes = request(resource as ResourceType, '', resource === NAMESPACES ? { namespace: 'shop' } : {});
    expect(ruleMatches(rule(['*'], scope as string), attributes)).toBe(expected);
  });

  it('a Namespace subresource is cluster-scoped too', () => {
    const finalize = request(NAMESPACES, 'finalize', { operation: 'UPDATE', namespace: 'shop' });
    expect(ruleMatches(rule(['*/*'], 'Cluster'), finalize)).toBe(true);
    expect(ruleMatches(rule(['*/*'], 'Namespaced'), finalize)).toBe(false);
  });
});

describe('namespaceSelector (namespace/matcher.go)', () => {
  const selector = { matchLabels: { team: 'shop' } };
  const labels: Record<string, Record<string, string>> = { shop: { team: 'shop' }, bare: {} };
  const lookup: NamespaceLabels = (name) => labels[name];

  it('always matches a cluster-scoped object other than a Namespace, and an empty selector', () => {
    expect(namespaceSelectorMatches(webhook({ namespaceSelector: selector }), request(NODES), lookup)).toBe(true);
    expect(namespaceSelectorMatches(webhook(), request(PODS, '', { namespace: 'gone' }), lookup)).toBe(true);
  });

  it("matches a namespaced object by its namespace's stored labels; a namespace without labels has none", () => {
    const hook = webhook({ namespaceSelector: selector });
    expect(namespaceSelectorMatches(hook, request(PODS), lookup)).toBe(true);
    expect(namespaceSelectorMatches(hook, request(PODS, '', { namespace: 'bare' }), lookup)).toBe(false);
    const notIn = webhook({
      namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['shop'] }] },
    });
    expect(namespaceSelectorMatches(notIn, request(PODS, '', { namespace: 'bare' }), lookup)).toBe(true);
  });

  it('fails the request with 404 when the namespace is not there, rather than matching empty labels', () => {
    const notIn = webhook({
      namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['shop'] }] },
    });
    let thrown: unknown;
    try {
      namespaceSelectorMatches(notIn, request(PODS, '', { operation: 'UPDATE', namespace: 'gone' }), lookup);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ code: 404, message: 'namespaces "gone" not found' });
  });

  it("matches a Namespace created or updated by the request's labels, otherwise by the stored ones", () => {
    const hook = webhook({ namespaceSelector: selector });
    const object: JsonObject = { metadata: { name: 'bare', labels: { team: 'shop' } } };
    const creating = request(NAMESPACES, '', { namespace: 'bare', object });
    expect(namespaceSelectorMatches(hook, creating, lookup)).toBe(true);
    // DELETE has no new object: the stored Namespace's labels decide (here none).
    const deleting = request(NAMESPACES, '', { operation: 'DELETE', namespace: 'bare', oldObject: object });
    expect(namespaceSelectorMatches(hook, deleting, lookup)).toBe(false);
    // A Namespace subresource is matched by the stored Namespace too.
    const finalizing = request(NAMESPACES, 'finalize', { operation: 'UPDATE', namespace: 'bare', object });
    expect(namespaceSelectorMatches(hook, finalizing, lookup)).toBe(false);
  });
});

describe('objectSelector (object/matcher.go)', () => {
  const hook = webhook({ objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] } });

  it('matches the new or the old object by its labels, an empty selector everything', () => {
    const labelled = (labels: Record<string, string>): JsonObject => ({ metadata: { name: 'x', labels } });
    expect(objectSelectorMatches(hook, request(PODS, '', { object: labelled({}) }))).toBe(true);
    expect(objectSelectorMatches(hook, request(PODS, '', { object: labelled({ skip: 'y' }) }))).toBe(false);
    const update = { operation: 'UPDATE' as const, object: labelled({ skip: 'y' }), oldObject: labelled({}) };
    expect(objectSelectorMatches(hook, request(PODS, '', update))).toBe(true);
    expect(objectSelectorMatches(webhook(), request(PODS, 'exec', { object: { command: ['sh'] } }))).toBe(true);
  });

  it('never matches a non-empty selector on an object without metadata (CONNECT options)', () => {
    const exec = request(PODS, 'exec', { operation: 'CONNECT', object: { kind: 'PodExecOptions', command: ['sh'] } });
    expect(objectSelectorMatches(hook, exec)).toBe(false);
  });
});
