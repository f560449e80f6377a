/**
 * Whether a webhook is called for a request, as kube-apiserver decides it: rules (operation, group,
 * version, resource with subresource wildcards, scope), namespaceSelector, objectSelector.
 */
import { isObject, matchesLabelSelector, type JsonObject, type LabelSelector } from '@edict/foundation';
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

function resourceMatches(patterns: readonly string[], resource: string, subresource: string): boolean {
  const full = subresource ? `${resource}/${subresource}` : resource;
  return patterns.some((pattern) => {
    if (pattern === '*/*' || pattern === full) return true;
    const [patternResource, patternSub] = pattern.split('/', 2) as [string, string | undefined];
    if (patternSub === undefined) return subresource === '' && patternResource === '*';
    const resourceOk = patternResource === '*' || patternResource === resource;
    const subOk = patternSub === '*' || patternSub === subresource;
    return resourceOk && subOk && subresource !== '';
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

/** The namespace labels a namespaceSelector is matched against, or `undefined` if the namespace is gone. */
export type NamespaceLabels = (name: string) => Record<string, string> | undefined;

export function namespaceSelectorMatches(
  webhook: Webhook,
  attributes: AdmissionAttributes,
  namespaceLabels: NamespaceLabels,
): boolean {
  // Cluster-scoped objects (other than a Namespace itself) always match.
  if (attributes.namespace === '' && !isNamespaceResource(attributes)) return true;
  if (isEmptySelector(webhook.namespaceSelector)) return true;
  let labels: Record<string, string> | undefined;
  if (isNamespaceResource(attributes) && attributes.subresource === '') {
    // A Namespace is matched by its own labels (the old object's on delete).
    labels = labelsOf(attributes.operation === 'DELETE' ? attributes.oldObject : attributes.object) ?? {};
  } else {
    labels = namespaceLabels(attributes.namespace) ?? {};
  }
  return matchesLabelSelector(webhook.namespaceSelector as LabelSelector, labels);
}

export function objectSelectorMatches(webhook: Webhook, attributes: AdmissionAttributes): boolean {
  if (isEmptySelector(webhook.objectSelector)) return true;
  const selector = webhook.objectSelector as LabelSelector;
  const candidates = [attributes.object, attributes.oldObject].filter((o): o is JsonObject => o !== undefined);
  return candidates.some((object) => matchesLabelSelector(selector, labelsOf(object) ?? {}));
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
