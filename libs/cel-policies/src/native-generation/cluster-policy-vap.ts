/**
 * A ClusterPolicy's one `validate.cel` rule as a ValidatingAdmissionPolicy and its binding, as
 * Kyverno builds them: match kinds become resource rules (through discovery, one rule per
 * group/version, `pods` brings `pods/ephemeralcontainers`), match namespaces a namespace selector,
 * exclude blocks and the matching PolicyExceptions' match blocks exclude resource rules; the rule's
 * CEL preconditions, params, expressions, audit annotations and variables carry over. The binding
 * says Deny for Enforce, Audit and Warn for Audit. Call it only when `canGenerateVap` said yes.
 */
import type {
  MatchResources as KyvernoMatch,
  Policy,
  PolicyException,
  ResourceDescription,
  ResourceFilter,
} from '@edict/engine';
import { type JsonObject, type LabelSelector } from '@edict/foundation';
import type { MatchResources, NamedRuleWithOperations } from '@edict/native-policies';
import { generatedBindingName, generatedLabels, generatedPolicyName } from './names';
import { ADMISSION_REGISTRATION_GROUP, type GeneratedObject, type GeneratedPair, type KindResolver } from './types';

const ALL_OPERATIONS = ['CREATE', 'UPDATE', 'CONNECT', 'DELETE'];

/** The generated pair for `policy`; throws (with the kind named) when a kind does not resolve to one resource. */
export function buildClusterPolicyVap(
  policy: Policy,
  exceptions: readonly PolicyException[],
  resolve: KindResolver,
): GeneratedPair {
  const rule = policy.spec.rules[0];
  const cel = rule.validate?.cel ?? {};
  const constraints: MatchResources = {};
  const matchRules: NamedRuleWithOperations[] = [];
  const excludeRules: NamedRuleWithOperations[] = [];
  translateBlock(rule.match, constraints, matchRules, true, resolve);
  if (rule.exclude) translateBlock(rule.exclude, constraints, excludeRules, false, resolve);
  for (const exception of exceptions) {
    const match = exception.spec?.match ?? {};
    translateFilters(match.any ?? [], constraints, excludeRules, false, resolve);
    translateFilters(match.all ?? [], constraints, excludeRules, false, resolve);
  }
  const spec: JsonObject = { matchConstraints: constraints as JsonObject };
  if (cel.paramKind) spec.paramKind = cel.paramKind as JsonObject;
  setList(spec, 'variables', cel.variables);
  setList(spec, 'validations', cel.expressions);
  setList(spec, 'auditAnnotations', cel.auditAnnotations);
  setList(spec, 'matchConditions', rule.celPreconditions);
  const name = generatedPolicyName('ClusterPolicy', policy.metadata.name);
  const owner = ownerOf(policy);
  const vap: GeneratedObject = {
    apiVersion: `${ADMISSION_REGISTRATION_GROUP}/v1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name, labels: generatedLabels(policy.metadata.labels, true), ownerReferences: [owner] },
    spec: clean(spec),
  };
  const bindingSpec: JsonObject = { policyName: name };
  if (cel.paramRef) bindingSpec.paramRef = cel.paramRef as JsonObject;
  bindingSpec.validationActions = bindingActions(rule.validate?.failureAction ?? policy.spec.validationFailureAction);
  const binding: GeneratedObject = {
    apiVersion: `${ADMISSION_REGISTRATION_GROUP}/v1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: generatedBindingName(name), labels: generatedLabels(undefined, false), ownerReferences: [owner] },
    spec: clean(bindingSpec),
  };
  return { policy: vap, binding };
}

/** Enforce → [Deny]; anything else is Audit (Kyverno's default) → [Audit, Warn]. */
function bindingActions(action: string | undefined): string[] {
  return (action ?? '').toLowerCase() === 'enforce' ? ['Deny'] : ['Audit', 'Warn'];
}

function ownerOf(policy: Policy): GeneratedObject['metadata']['ownerReferences'][number] {
  return {
    apiVersion: policy.apiVersion ?? 'kyverno.io/v1',
    kind: policy.kind ?? 'ClusterPolicy',
    name: policy.metadata.name,
    uid: policy.metadata.uid ?? '',
  };
}

function translateBlock(
  block: KyvernoMatch,
  constraints: MatchResources,
  rules: NamedRuleWithOperations[],
  isMatch: boolean,
  resolve: KindResolver,
): void {
  if (block.resources && !isEmptyDescription(block.resources)) {
    translateResource(block.resources, constraints, rules, isMatch, resolve);
  }
  translateFilters(block.any ?? [], constraints, rules, isMatch, resolve);
  translateFilters(block.all ?? [], constraints, rules, isMatch, resolve);
}

function translateFilters(
  filters: readonly ResourceFilter[],
  constraints: MatchResources,
  rules: NamedRuleWithOperations[],
  isMatch: boolean,
  resolve: KindResolver,
): void {
  for (const filter of filters) translateResource(filter.resources ?? {}, constraints, rules, isMatch, resolve);
}

/**
 * Adds the description's rules and, as Kyverno does for each match entry in turn, sets the
 * constraints' rules and selectors (so the last entry's selectors win); exclusions set the
 * exclude rules only.
 */
function translateResource(
  description: ResourceDescription,
  constraints: MatchResources,
  rules: NamedRuleWithOperations[],
  isMatch: boolean,
  resolve: KindResolver,
): void {
  addRules(description, rules, isMatch, resolve);
  if (!isMatch) {
    constraints.excludeResourceRules = [...rules];
    return;
  }
  constraints.resourceRules = [...rules];
  const namespaces = description.namespaces ?? [];
  const namespaceSelector: LabelSelector | undefined =
    namespaces.length > 0
      ? { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...namespaces] }] }
      : description.namespaceSelector;
  if (namespaceSelector) constraints.namespaceSelector = namespaceSelector;
  else delete constraints.namespaceSelector;
  if (description.selector) constraints.objectSelector = description.selector;
  else delete constraints.objectSelector;
}

function addRules(
  description: ResourceDescription,
  rules: NamedRuleWithOperations[],
  isMatch: boolean,
  resolve: KindResolver,
): void {
  const operations = translateOperations(description.operations);
  const resourceNames = [...(description.names ?? []), ...(description.name ? [description.name] : [])];
  for (const kind of description.kinds ?? []) {
    if (kind === '*') {
      rules.push(namedRule(resourceNames, '*', '*', operations, ['*']));
      continue;
    }
    const found = resolve(kind);
    if (found.length !== 1) throw new Error(`no unique match for kind ${kind}`);
    const { group, version, resource } = found[0];
    const resources = resource === 'pods' ? [resource, 'pods/ephemeralcontainers'] : [resource];
    const existing = rules.find((r) => r.apiGroups.includes(group) && r.apiVersions.includes(version));
    if (existing) existing.resources = [...existing.resources, ...resources].sort(byteOrder);
    else rules.push(namedRule(resourceNames, group, version, operations, resources));
  }
  // An exclusion of namespaces without kinds excludes the Namespace objects themselves.
  const namespaces = description.namespaces ?? [];
  if (!isMatch && namespaces.length > 0 && (description.kinds ?? []).length === 0) {
    rules.push({
      resourceNames: [...namespaces],
      operations,
      apiGroups: [''],
      apiVersions: ['v1'],
      resources: ['namespaces'],
    });
  }
}

function namedRule(
  resourceNames: string[],
  group: string,
  version: string,
  operations: string[],
  resources: string[],
): NamedRuleWithOperations {
  const rule: NamedRuleWithOperations = {
    operations: [...operations],
    apiGroups: [group],
    apiVersions: [version],
    resources: [...resources].sort(byteOrder),
  };
  if (resourceNames.length > 0) rule.resourceNames = [...resourceNames];
  return rule;
}

/** Kyverno's operations as admission operations; all four when none is named (a VAP rule requires them). */
function translateOperations(operations: readonly string[] | undefined): string[] {
  const known = (operations ?? []).filter((op) => ALL_OPERATIONS.includes(op));
  return known.length > 0 ? known : [...ALL_OPERATIONS];
}

function isEmptyDescription(description: ResourceDescription): boolean {
  return Object.values(description).every(
    (value) =>
      value === undefined ||
      value === '' ||
      (Array.isArray(value) && value.length === 0) ||
      (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0),
  );
}

function setList(target: JsonObject, key: string, list: readonly unknown[] | undefined): void {
  if (list && list.length > 0) target[key] = JSON.parse(JSON.stringify(list)) as JsonObject[];
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Plain JSON as the API server stores it (no undefined members). */
function clean(value: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}
