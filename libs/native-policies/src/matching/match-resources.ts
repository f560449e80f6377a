/**
 * Whether a policy's (or binding's) `matchConstraints` / `matchResources` cover a request, as
 * kube-apiserver's policy matcher decides it: namespaceSelector, objectSelector (old or new object),
 * excludeResourceRules, resourceRules with resourceNames, and matchPolicy Equivalent.
 */
import {
  isObject,
  labelSelectorError,
  matchesLabelSelector,
  type JsonObject,
  type LabelSelector,
} from '@edict/foundation';
import type {
  AdmissionAttributes,
  GroupVersionKind,
  GroupVersionResource,
  MatchResources,
  NamedRuleWithOperations,
} from '../types';
import { equivalentsFromRules, type EquivalentResources } from './equivalents';
import { namedRuleMatches, ruleMatches } from './rules';

export interface MatchResourcesOptions {
  /** The server's equivalent resources for matchPolicy Equivalent (default: from the rules' versions). */
  equivalents?: EquivalentResources;
  /**
   * Kyverno's CLI: a request without a name (generateName) matches a rule's resourceNames by the
   * prefix of its generateName. kube does not match such requests.
   */
  generateNamePrefix?: boolean;
}

/**
 * A match decision. `error` when kube would fail the request instead (an invalid selector, the
 * request's namespace not found): the caller applies its failurePolicy. On a match, `resource` and
 * `kind` are what the rule matched (an equivalent one under matchPolicy Equivalent).
 */
export type MatchDecision =
  { matches: true; resource: GroupVersionResource; kind: GroupVersionKind } | { matches: false; error?: string };

/** `matchResources` decision; `namespaceObject` is the request namespace's object, null if none exists. */
export function matchResources(
  match: MatchResources | undefined,
  attributes: AdmissionAttributes,
  namespaceObject: JsonObject | null | undefined,
  options: MatchResourcesOptions = {},
): MatchDecision {
  const criteria = match ?? {};
  const namespace = namespaceSelectorMatches(criteria.namespaceSelector, attributes, namespaceObject);
  if (namespace.matches === false && namespace.error === undefined) return { matches: false };
  const object = objectSelectorMatches(criteria.objectSelector, attributes);
  if (object.matches === false && object.error === undefined) return { matches: false };

  const exact = criteria.matchPolicy === 'Exact';
  if (rulesMatch(criteria.excludeResourceRules ?? [], attributes, exact, options)) return { matches: false };
  let matched: { resource: GroupVersionResource; kind: GroupVersionKind } | undefined;
  const rules = criteria.resourceRules ?? [];
  if (rules.length === 0) matched = { resource: attributes.resource, kind: attributes.kind };
  else matched = rulesMatch(rules, attributes, exact, options);
  if (!matched) return { matches: false };

  // Selector errors count only for requests the rules cover, as in kube.
  if (namespace.error !== undefined) return { matches: false, error: namespace.error };
  if (object.error !== undefined) return { matches: false, error: object.error };
  return { matches: true, ...matched };
}

/** `matchResources` as a yes/no: an error (see {@link matchResources}) does not match. */
export function matchesResources(
  match: MatchResources | undefined,
  attributes: AdmissionAttributes,
  namespaceObject: JsonObject | null | undefined,
  options?: MatchResourcesOptions,
): boolean {
  return matchResources(match, attributes, namespaceObject, options).matches;
}

function rulesMatch(
  rules: readonly NamedRuleWithOperations[],
  attributes: AdmissionAttributes,
  exact: boolean,
  options: MatchResourcesOptions,
): { resource: GroupVersionResource; kind: GroupVersionKind } | undefined {
  if (rules.some((rule) => namedRuleMatches(rule, attributes) || generateNameMatches(rule, attributes, options))) {
    return { resource: attributes.resource, kind: attributes.kind };
  }
  if (exact || rules.length === 0) return undefined;
  const equivalents = (options.equivalents ?? equivalentsFromRules(rules))(
    attributes.resource,
    attributes.kind,
    attributes.subresource,
  );
  for (const rule of rules) {
    for (const equivalent of equivalents) {
      if (sameResource(equivalent.resource, attributes.resource)) continue;
      if (namedRuleMatches(rule, attributes, equivalent.resource)) return equivalent;
    }
  }
  return undefined;
}

function generateNameMatches(
  rule: NamedRuleWithOperations,
  attributes: AdmissionAttributes,
  options: MatchResourcesOptions,
): boolean {
  if (!options.generateNamePrefix || attributes.name !== '' || (rule.resourceNames ?? []).length === 0) return false;
  if (!ruleMatches(rule, attributes)) return false;
  const metadata = attributes.object && isObject(attributes.object.metadata) ? attributes.object.metadata : {};
  const generateName = typeof metadata.generateName === 'string' ? metadata.generateName : '';
  return generateName !== '' && rule.resourceNames!.some((name) => generateName.startsWith(name));
}

function sameResource(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

type SelectorOutcome = { matches: boolean; error?: string };

function isEmptySelector(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

function labelsOf(object: JsonObject | null | undefined): Record<string, string> {
  const metadata = object && isObject(object.metadata) ? object.metadata : undefined;
  return metadata && isObject(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
}

function nameOf(object: JsonObject | null | undefined): string | undefined {
  const metadata = object && isObject(object.metadata) ? object.metadata : undefined;
  return metadata && typeof metadata.name === 'string' ? metadata.name : undefined;
}

/**
 * kube's namespace predicate: cluster-scoped objects other than Namespaces always match; a
 * Namespace being created or updated is matched by its own labels; anything else by the labels of
 * its namespace, and a namespace that does not exist is kube's 404 error.
 */
function namespaceSelectorMatches(
  selector: LabelSelector | undefined,
  attributes: AdmissionAttributes,
  namespaceObject: JsonObject | null | undefined,
): SelectorOutcome {
  const isNamespaces = attributes.resource.resource === 'namespaces';
  if (attributes.namespace === '' && !isNamespaces) return { matches: true };
  if (!selector) return { matches: true };
  const invalid = labelSelectorError(selector);
  if (invalid !== undefined) return { matches: false, error: `Internal error occurred: ${invalid}` };
  if (isEmptySelector(selector)) return { matches: true };
  let labels: Record<string, string>;
  if (
    isNamespaces &&
    attributes.subresource === '' &&
    (attributes.operation === 'CREATE' || attributes.operation === 'UPDATE')
  ) {
    labels = labelsOf(attributes.object);
  } else {
    // A Namespace's own requests (delete, subresources) name it as their namespace; its stored
    // object is the old object when the caller has no other.
    const stored = namespaceObject ?? (isNamespaces ? attributes.oldObject : null);
    if (!stored || nameOf(stored) !== attributes.namespace) {
      return { matches: false, error: `namespaces "${attributes.namespace}" not found` };
    }
    labels = labelsOf(stored);
  }
  return matchesLabelSelector(selector, labels) ? { matches: true } : { matches: false };
}

/** kube's object predicate: the new or the old object's labels match. */
function objectSelectorMatches(selector: LabelSelector | undefined, attributes: AdmissionAttributes): SelectorOutcome {
  if (!selector) return { matches: true };
  const invalid = labelSelectorError(selector);
  if (invalid !== undefined) return { matches: false, error: `Internal error occurred: ${invalid}` };
  if (isEmptySelector(selector)) return { matches: true };
  const candidates = [attributes.object, attributes.oldObject].filter((o): o is JsonObject => isObject(o));
  return candidates.some((object) => matchesLabelSelector(selector, labelsOf(object)))
    ? { matches: true }
    : { matches: false };
}
