/**
 * Whether a webhook is called for a request, as kube-apiserver decides it: rules (operation, group,
 * version, resource with subresource wildcards, scope), namespaceSelector, objectSelector.
 */
import { isObject, matchesLabelSelector, type JsonObject, type LabelSelector } from '@edict/foundation';
import { notFound } from '../status';
import type { AdmissionAttributes } from './types';
import type { RuleWithOperations, Webhook } from './webhooks';

const ADMISSION_REGISTRATION = 'admissionregistration.k8s.io';
/** Objects kube never sends to webhooks, so that a broken webhook cannot lock its own configuration. */
const EXEMPT_RESOURCES = new Set([
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

export function isExemptFromWebhooks(attributes: AdmissionAttributes): boolean {
  return attributes.type.group === ADMISSION_REGISTRATION && EXEMPT_RESOURCES.has(attributes.type.plural);
}

function isNamespaceResource(attributes: AdmissionAttributes): boolean {
  return attributes.type.group === '' && attributes.type.plural === 'namespaces';
}

function listed(values: readonly string[], value: string): boolean {
  return values.includes('*') || values.includes(value);
}

/**
 * kube's rules.go: each entry splits at its first `/` into a resource and a subresource (`''` when
 * none); each part is `*` or must equal the request's. So `*` is every resource but no subresource,
 * `pods/*` is pods and all of its subresources, `*\/status` every status, `*\/*` everything.
 */
function resourceMatches(patterns: readonly string[], resource: string, subresource: string): boolean {
  return patterns.some((pattern) => {
    const slash = pattern.indexOf('/');
    const patternResource = slash < 0 ? pattern : pattern.slice(0, slash);
    const patternSub = slash < 0 ? '' : pattern.slice(slash + 1);
    return (
      (patternResource === '*' || patternResource === resource) && (patternSub === '*' || patternSub === subresource)
    );
  });
}

function scopeMatches(scope: string, attributes: AdmissionAttributes): boolean {
  if (scope === '*' || scope === '') return true;
  // A Namespace object is cluster-scoped although its requests carry the namespace's name.
  if (scope === 'Namespaced') return !isNamespaceResource(attributes) && attributes.namespace !== '';
  if (scope === 'Cluster') return isNamespaceResource(attributes) || attributes.namespace === '';
  return false;
}

export function ruleMatches(rule: RuleWithOperations, attributes: AdmissionAttributes, anyVersion = false): boolean {
  const { type } = attributes;
  return (
    listed(rule.operations, attributes.operation) &&
    listed(rule.apiGroups, type.group) &&
    (anyVersion || listed(rule.apiVersions, type.version)) &&
    resourceMatches(rule.resources, type.plural, attributes.subresource) &&
    scopeMatches(rule.scope, attributes)
  );
}

/**
 * Rules match exactly, or (matchPolicy Equivalent) for the same group and resource at another version.
 * The latter approximates kube's equivalence: versions of one resource are the only equivalents here.
 */
export function rulesMatch(webhook: Webhook, attributes: AdmissionAttributes): boolean {
  if (webhook.rules.some((rule) => ruleMatches(rule, attributes))) return true;
  return webhook.matchPolicy === 'Equivalent' && webhook.rules.some((rule) => ruleMatches(rule, attributes, true));
}

function labelsOf(object: JsonObject | undefined): Record<string, string> | undefined {
  const metadata = object && isObject(object.metadata) ? object.metadata : undefined;
  return metadata && isObject(metadata.labels) ? (metadata.labels as Record<string, string>) : undefined;
}

function isEmptySelector(selector: JsonObject): boolean {
  const labels = isObject(selector.matchLabels) ? Object.keys(selector.matchLabels) : [];
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  return labels.length === 0 && expressions.length === 0;
}

/**
 * The labels of a stored namespace (`{}` when it has none), or `undefined` when there is no such
 * namespace.
 */
export type NamespaceLabels = (name: string) => Record<string, string> | undefined;

/** kube's namespace/matcher.go keys on the resource name alone. */
const NAMESPACES = 'namespaces';

/**
 * kube's namespace/matcher.go: a cluster-scoped request other than one on `namespaces` always
 * matches, as does an empty selector; a Namespace created or updated (not a subresource) is matched
 * by the request's labels; anything else by the stored namespace's, and a namespace that is not
 * there fails the request with 404 rather than being matched as unlabelled.
 */
export function namespaceSelectorMatches(
  webhook: Webhook,
  attributes: AdmissionAttributes,
  namespaceLabels: NamespaceLabels,
): boolean {
  const resource = attributes.type.plural;
  if (attributes.namespace === '' && resource !== NAMESPACES) return true;
  if (isEmptySelector(webhook.namespaceSelector)) return true;
  let labels: Record<string, string> | undefined;
  if (
    resource === NAMESPACES &&
    attributes.subresource === '' &&
    (attributes.operation === 'CREATE' || attributes.operation === 'UPDATE')
  ) {
    labels = labelsOf(attributes.object) ?? {};
  } else {
    labels = namespaceLabels(attributes.namespace);
    if (labels === undefined) throw notFound({ group: '', kind: NAMESPACES, name: attributes.namespace });
  }
  return matchesLabelSelector(webhook.namespaceSelector as LabelSelector, labels);
}

/**
 * kube's object/matcher.go: an empty selector matches; otherwise the new or the old object must
 * carry matching labels, and an object without metadata (the options of a CONNECT) never matches.
 */
export function objectSelectorMatches(webhook: Webhook, attributes: AdmissionAttributes): boolean {
  if (isEmptySelector(webhook.objectSelector)) return true;
  const selector = webhook.objectSelector as LabelSelector;
  return [attributes.object, attributes.oldObject].some(
    (object) =>
      object !== undefined && isObject(object.metadata) && matchesLabelSelector(selector, labelsOf(object) ?? {}),
  );
}

/** Rules and selectors decide; matchConditions come after (match-conditions.ts), as in kube. */
export function shouldCall(
  webhook: Webhook,
  attributes: AdmissionAttributes,
  namespaceLabels: NamespaceLabels,
): boolean {
  return (
    !isExemptFromWebhooks(attributes) &&
    rulesMatch(webhook, attributes) &&
    namespaceSelectorMatches(webhook, attributes, namespaceLabels) &&
    objectSelectorMatches(webhook, attributes)
  );
}
