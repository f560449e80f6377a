/**
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io
 * v1, and the v1beta1 / v1alpha1 shapes, which carry the same fields) read into plain data with
 * kube's defaults applied: failurePolicy Fail, matchPolicy Equivalent, empty selectors, and
 * parameterNotFoundAction Deny.
 */
import { isObject, type JsonObject, type JsonValue, type LabelSelector } from '@edict/foundation';
import type { MatchCondition } from '../match-conditions';
import type { MatchResources, NamedRuleWithOperations } from '../types';

export const ADMISSION_REGISTRATION = 'admissionregistration.k8s.io';
const VERSIONS = new Set(['v1', 'v1beta1', 'v1alpha1']);

export type FailurePolicy = 'Fail' | 'Ignore';
export type ValidationAction = 'Deny' | 'Warn' | 'Audit';

export interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

export interface Variable {
  name: string;
  expression: string;
}

export interface ParamKind {
  apiVersion: string;
  kind: string;
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction: 'Allow' | 'Deny';
}

export interface PolicySpec {
  name: string;
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  validations: Validation[];
  auditAnnotations: AuditAnnotation[];
  matchConditions: MatchCondition[];
  variables: Variable[];
  failurePolicy: FailurePolicy;
}

export interface BindingSpec {
  name: string;
  policyName: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions: ValidationAction[];
}

function isKind(object: { apiVersion?: unknown; kind?: unknown }, kind: string): boolean {
  if (object.kind !== kind || typeof object.apiVersion !== 'string') return false;
  const [group, version] = object.apiVersion.split('/');
  return group === ADMISSION_REGISTRATION && version !== undefined && VERSIONS.has(version);
}

export function isValidatingAdmissionPolicy(object: { apiVersion?: unknown; kind?: unknown }): boolean {
  return isKind(object, 'ValidatingAdmissionPolicy');
}

export function isValidatingAdmissionPolicyBinding(object: { apiVersion?: unknown; kind?: unknown }): boolean {
  return isKind(object, 'ValidatingAdmissionPolicyBinding');
}

export function nameOf(object: JsonObject): string {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  return typeof metadata.name === 'string' ? metadata.name : '';
}

const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');
const list = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : []);
const objects = (value: JsonValue | undefined): JsonObject[] => list(value).map((v) => (isObject(v) ? v : {}));
const strings = (value: JsonValue | undefined): string[] =>
  list(value).map((v) => (typeof v === 'string' ? v : String(v)));

export function readPolicy(policy: JsonObject): PolicySpec {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const out: PolicySpec = {
    name: nameOf(policy),
    validations: objects(spec.validations).map((v) => {
      const validation: Validation = { expression: text(v.expression) };
      if (typeof v.message === 'string') validation.message = v.message;
      if (typeof v.messageExpression === 'string') validation.messageExpression = v.messageExpression;
      if (typeof v.reason === 'string') validation.reason = v.reason;
      return validation;
    }),
    auditAnnotations: objects(spec.auditAnnotations).map((a) => ({
      key: text(a.key),
      valueExpression: text(a.valueExpression),
    })),
    matchConditions: objects(spec.matchConditions).map((c) => ({ name: text(c.name), expression: text(c.expression) })),
    variables: objects(spec.variables).map((v) => ({ name: text(v.name), expression: text(v.expression) })),
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
  };
  if (isObject(spec.paramKind)) {
    out.paramKind = { apiVersion: text(spec.paramKind.apiVersion), kind: text(spec.paramKind.kind) };
  }
  if (isObject(spec.matchConstraints)) out.matchConstraints = readMatchResources(spec.matchConstraints);
  return out;
}

export function readBinding(binding: JsonObject): BindingSpec {
  const spec = isObject(binding.spec) ? binding.spec : {};
  const out: BindingSpec = {
    name: nameOf(binding),
    policyName: text(spec.policyName),
    validationActions: strings(spec.validationActions) as ValidationAction[],
  };
  if (isObject(spec.paramRef)) {
    const ref = spec.paramRef;
    const paramRef: ParamRef = { parameterNotFoundAction: ref.parameterNotFoundAction === 'Allow' ? 'Allow' : 'Deny' };
    if (typeof ref.name === 'string' && ref.name !== '') paramRef.name = ref.name;
    if (typeof ref.namespace === 'string' && ref.namespace !== '') paramRef.namespace = ref.namespace;
    if (isObject(ref.selector)) paramRef.selector = ref.selector as LabelSelector;
    out.paramRef = paramRef;
  }
  if (isObject(spec.matchResources)) out.matchResources = readMatchResources(spec.matchResources);
  return out;
}

export function readMatchResources(match: JsonObject): MatchResources {
  const out: MatchResources = {
    resourceRules: objects(match.resourceRules).map(readRule),
    excludeResourceRules: objects(match.excludeResourceRules).map(readRule),
    matchPolicy: match.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
  };
  if (isObject(match.namespaceSelector)) out.namespaceSelector = match.namespaceSelector as LabelSelector;
  if (isObject(match.objectSelector)) out.objectSelector = match.objectSelector as LabelSelector;
  return out;
}

function readRule(rule: JsonObject): NamedRuleWithOperations {
  const out: NamedRuleWithOperations = {
    operations: strings(rule.operations),
    apiGroups: strings(rule.apiGroups),
    apiVersions: strings(rule.apiVersions),
    resources: strings(rule.resources),
  };
  if (Array.isArray(rule.resourceNames)) out.resourceNames = strings(rule.resourceNames);
  if (rule.scope === '*' || rule.scope === 'Cluster' || rule.scope === 'Namespaced') out.scope = rule.scope;
  return out;
}
