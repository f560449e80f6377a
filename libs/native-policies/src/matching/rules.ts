/**
 * One admission rule against a request, as kube-apiserver's rules matcher decides it (shared by
 * webhooks and admission policies): scope, operation, group, version, resource/subresource.
 */
import type { AdmissionAttributes, GroupVersionResource, NamedRuleWithOperations } from '../types';

function exactOrWildcard(items: readonly string[] | undefined, requested: string): boolean {
  return (items ?? []).some((item) => item === '*' || item === requested);
}

function isNamespacesResource(resource: GroupVersionResource): boolean {
  return resource.group === '' && resource.version === 'v1' && resource.resource === 'namespaces';
}

/** kube's scope check: a Namespace object is cluster-scoped although its requests carry its name. */
function scopeMatches(scope: string | undefined, attributes: AdmissionAttributes, resource: GroupVersionResource) {
  if (scope === undefined || scope === '*') return true;
  if (scope === 'Namespaced') return !isNamespacesResource(resource) && attributes.namespace !== '';
  if (scope === 'Cluster') return isNamespacesResource(resource) || attributes.namespace === '';
  return false;
}

/**
 * `resources` entries: `pods` (main resource only), `*` (every main resource), `pods/status`,
 * `pods/*` (pods and each of its subresources: kube's `*` subresource also matches none),
 * `*\/status`, `*\/*` (everything).
 */
function resourceMatches(patterns: readonly string[] | undefined, resource: string, subresource: string): boolean {
  return (patterns ?? []).some((pattern) => {
    const slash = pattern.indexOf('/');
    const patternResource = slash < 0 ? pattern : pattern.slice(0, slash);
    const patternSub = slash < 0 ? '' : pattern.slice(slash + 1);
    return (
      (patternResource === '*' || patternResource === resource) && (patternSub === '*' || patternSub === subresource)
    );
  });
}

/**
 * Whether `rule` covers the request; `resource` overrides the request's own for matchPolicy
 * Equivalent (kube matches the equivalent resource's group and version).
 */
export function ruleMatches(
  rule: NamedRuleWithOperations,
  attributes: AdmissionAttributes,
  resource: GroupVersionResource = attributes.resource,
): boolean {
  return (
    scopeMatches(rule.scope, attributes, resource) &&
    exactOrWildcard(rule.operations, attributes.operation) &&
    exactOrWildcard(rule.apiGroups, resource.group) &&
    exactOrWildcard(rule.apiVersions, resource.version) &&
    resourceMatches(rule.resources, resource.resource, attributes.subresource)
  );
}

/** A rule with `resourceNames` applies only to requests naming one of them (an empty list: all). */
export function namedRuleMatches(
  rule: NamedRuleWithOperations,
  attributes: AdmissionAttributes,
  resource: GroupVersionResource = attributes.resource,
): boolean {
  if (!ruleMatches(rule, attributes, resource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(attributes.name);
}

/** Objects kube never runs admission policies or webhooks on, so that none can lock itself in. */
export function isExemptAdmissionConfiguration(attributes: AdmissionAttributes): boolean {
  const { group, kind } = attributes.kind;
  return group === 'admissionregistration.k8s.io' && EXEMPT_KINDS.has(kind);
}

const EXEMPT_KINDS = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);
