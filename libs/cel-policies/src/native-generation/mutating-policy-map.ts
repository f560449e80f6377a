/**
 * A MutatingPolicy as a MutatingAdmissionPolicy and its binding, in the admissionregistration
 * version the cluster serves (v1, else v1beta1, else v1alpha1), as Kyverno builds them: only when
 * `spec.autogen.mutatingAdmissionPolicy.enabled` is true, the policy runs in Kubernetes mode, does
 * not use server-side apply and pod-controller autogen produces nothing. The resource rules of the
 * match constraints (Kyverno carries nothing else of them), the match conditions after each CEL
 * PolicyException's negated ones, the mutations (ApplyConfiguration or JSONPatch), variables, failure
 * policy and reinvocation policy (Never when unset) carry over; the binding names the policy only.
 */
import type { JsonObject } from '@edict/foundation';
import type { CelPolicyExceptionObject } from '../api/types';
import { mutatingAutogenConfigs } from '../mutating/autogen';
import type { MutatingPolicySpec } from '../mutating/types';
import { generatedBindingName, generatedLabels, generatedPolicyName } from './names';
import { CEL_POLICY_OWNER_API_VERSION } from './validating-policy-vap';
import {
  ADMISSION_REGISTRATION_GROUP,
  type GeneratedObject,
  type GenerationDecision,
  type MutatingAdmissionPolicyVersion,
} from './types';

const SKIP = 'skip generating MutatingAdmissionPolicy';

/** A MutatingPolicy object as stored. */
export interface MutatingPolicyObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; uid?: string; labels?: Record<string, string> };
  spec?: MutatingPolicySpec;
}

/** Whether the policy asks for a MutatingAdmissionPolicy (`spec.autogen.mutatingAdmissionPolicy.enabled`). */
export function mutatingAdmissionPolicyRequested(policy: MutatingPolicyObject): boolean {
  return policy.spec?.autogen?.mutatingAdmissionPolicy?.enabled === true;
}

/** Why `policy` gets no MutatingAdmissionPolicy, or undefined when it gets one. */
export function mutatingPolicySkipReason(policy: MutatingPolicyObject): string | undefined {
  const spec = policy.spec ?? {};
  if (!mutatingAdmissionPolicyRequested(policy)) return `${SKIP}: not enabled.`;
  if (spec.evaluation?.mode === 'JSON') return `${SKIP}: JSON evaluation mode has no admission equivalent.`;
  if ((spec.evaluation as { useServerSideApply?: unknown } | undefined)?.useServerSideApply === true) {
    return `${SKIP}: useServerSideApply is enabled, which mutates atomic fields that a native MutatingAdmissionPolicy rejects.`;
  }
  if (mutatingAutogenConfigs(spec).length > 0) return `${SKIP}: pod controllers autogen is enabled.`;
  return undefined;
}

/** The decision for `policy` with the CEL PolicyExceptions that name it, written in `version`. */
export function buildMutatingPolicyMap(
  policy: MutatingPolicyObject,
  exceptions: readonly CelPolicyExceptionObject[],
  version: MutatingAdmissionPolicyVersion,
): GenerationDecision {
  const reason = mutatingPolicySkipReason(policy);
  if (reason !== undefined) return { generate: false, message: reason };
  const spec = JSON.parse(JSON.stringify(policy.spec ?? {})) as MutatingPolicySpec;
  const matchConditions: JsonObject[] = [];
  for (const exception of exceptions) {
    for (const condition of exception.spec?.matchConditions ?? []) {
      matchConditions.push({ name: condition.name, expression: `!(${condition.expression})` });
    }
  }
  matchConditions.push(...((spec.matchConditions ?? []) as unknown as JsonObject[]));
  const resourceRules = (spec.matchConstraints?.resourceRules ?? []).map((rule) => {
    const copy: JsonObject = {
      apiGroups: rule.apiGroups,
      apiVersions: rule.apiVersions,
      operations: rule.operations,
      resources: rule.resources,
    };
    if (rule.resourceNames && rule.resourceNames.length > 0) copy.resourceNames = rule.resourceNames;
    if (rule.scope) copy.scope = rule.scope;
    return copy;
  });
  const mutations = (spec.mutations ?? []).map((m) => {
    const raw = m as unknown as JsonObject;
    const out: JsonObject = { patchType: raw.patchType ?? null };
    const apply = raw.applyConfiguration as JsonObject | undefined;
    const patch = raw.jsonPatch as JsonObject | undefined;
    if (apply) out.applyConfiguration = { expression: apply.expression ?? '' };
    if (patch) out.jsonPatch = { expression: patch.expression ?? '' };
    return out;
  });
  const mapSpec: JsonObject = { matchConstraints: resourceRules.length > 0 ? { resourceRules } : {} };
  if (matchConditions.length > 0) mapSpec.matchConditions = matchConditions;
  if (mutations.length > 0) mapSpec.mutations = mutations;
  if ((spec.variables ?? []).length > 0) mapSpec.variables = spec.variables as unknown as JsonObject[];
  if (spec.failurePolicy) mapSpec.failurePolicy = spec.failurePolicy;
  mapSpec.reinvocationPolicy = spec.reinvocationPolicy ?? 'Never';
  const name = generatedPolicyName('MutatingPolicy', policy.metadata?.name ?? '');
  const owner = {
    apiVersion: CEL_POLICY_OWNER_API_VERSION,
    kind: 'MutatingPolicy',
    name: policy.metadata?.name ?? '',
    uid: policy.metadata?.uid ?? '',
  };
  const apiVersion = `${ADMISSION_REGISTRATION_GROUP}/${version}`;
  const map: GeneratedObject = {
    apiVersion,
    kind: 'MutatingAdmissionPolicy',
    metadata: { name, labels: generatedLabels(policy.metadata?.labels, true), ownerReferences: [owner] },
    spec: JSON.parse(JSON.stringify(mapSpec)) as JsonObject,
  };
  const binding: GeneratedObject = {
    apiVersion,
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name: generatedBindingName(name), labels: generatedLabels(undefined, false), ownerReferences: [owner] },
    spec: { policyName: name },
  };
  return { generate: true, objects: { policy: map, binding } };
}
