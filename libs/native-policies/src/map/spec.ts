/**
 * MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding (admissionregistration.k8s.io v1,
 * v1beta1 and v1alpha1, which carry the same fields) read into plain data with kube's defaults:
 * failurePolicy Fail, reinvocationPolicy Never, matchPolicy Equivalent, parameterNotFoundAction Deny.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { MatchCondition } from '../match-conditions';
import type { MutationSpec } from '../mutation/compile';
import type { MatchResources } from '../types';
import {
  ADMISSION_REGISTRATION,
  nameOf,
  readBinding,
  readMatchResources,
  type FailurePolicy,
  type ParamKind,
  type ParamRef,
  type Variable,
} from '../vap/spec';

const VERSIONS = new Set(['v1', 'v1beta1', 'v1alpha1']);

export type ReinvocationPolicy = 'Never' | 'IfNeeded';

export interface MutatingPolicySpec {
  name: string;
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  matchConditions: MatchCondition[];
  variables: Variable[];
  /** As written: compileMutation checks each. */
  mutations: MutationSpec[];
  failurePolicy: FailurePolicy;
  reinvocationPolicy: ReinvocationPolicy;
}

export interface MutatingBindingSpec {
  name: string;
  policyName: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
}

function isKind(object: { apiVersion?: unknown; kind?: unknown }, kind: string): boolean {
  if (object.kind !== kind || typeof object.apiVersion !== 'string') return false;
  const [group, version] = object.apiVersion.split('/');
  return group === ADMISSION_REGISTRATION && version !== undefined && VERSIONS.has(version);
}

export function isMutatingAdmissionPolicy(object: { apiVersion?: unknown; kind?: unknown }): boolean {
  return isKind(object, 'MutatingAdmissionPolicy');
}

export function isMutatingAdmissionPolicyBinding(object: { apiVersion?: unknown; kind?: unknown }): boolean {
  return isKind(object, 'MutatingAdmissionPolicyBinding');
}

const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');
const objects = (value: JsonValue | undefined): JsonObject[] =>
  (Array.isArray(value) ? value : []).map((v) => (isObject(v) ? v : {}));

export function readMutatingPolicy(policy: JsonObject): MutatingPolicySpec {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const out: MutatingPolicySpec = {
    name: nameOf(policy),
    matchConditions: objects(spec.matchConditions).map((c) => ({ name: text(c.name), expression: text(c.expression) })),
    variables: objects(spec.variables).map((v) => ({ name: text(v.name), expression: text(v.expression) })),
    mutations: objects(spec.mutations) as MutationSpec[],
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    reinvocationPolicy: spec.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
  };
  if (isObject(spec.paramKind)) {
    out.paramKind = { apiVersion: text(spec.paramKind.apiVersion), kind: text(spec.paramKind.kind) };
  }
  if (isObject(spec.matchConstraints)) out.matchConstraints = readMatchResources(spec.matchConstraints);
  return out;
}

export function readMutatingBinding(binding: JsonObject): MutatingBindingSpec {
  const { name, policyName, paramRef, matchResources } = readBinding(binding);
  return {
    name,
    policyName,
    ...(paramRef ? { paramRef } : {}),
    ...(matchResources ? { matchResources } : {}),
  };
}
