/**
 * A ValidatingPolicy as a ValidatingAdmissionPolicy and its binding, as Kyverno builds them: only
 * when `spec.autogen.validatingAdmissionPolicy.enabled` is true, the policy runs in Kubernetes
 * mode and pod-controller autogen produces nothing (a VAP cannot carry the rewritten copies).
 * The spec's match constraints, match conditions, validations, audit annotations and variables carry
 * over; each CEL PolicyException naming the policy adds its match conditions negated, and its
 * `images` / `allowedValues` become the variables `allowedImages` / `allowedValues` (expressions
 * reading `exceptions.allowedImages` read `variables.allowedImages`). An exception with compensating
 * validations keeps the policy out. The binding carries the policy's validation actions (Deny when none).
 */
import type { JsonObject } from '@edict/foundation';
import { autogenConfigs } from '../autogen/autogen';
import type { CelPolicyExceptionObject, ValidatingPolicyObject } from '../api/types';
import { generatedBindingName, generatedLabels, generatedPolicyName } from './names';
import { ADMISSION_REGISTRATION_GROUP, type GeneratedObject, type GenerationDecision } from './types';

const SKIP = 'skip generating ValidatingAdmissionPolicy';
/** The owner reference's version, as Kyverno writes it for the policies.kyverno.io kinds. */
export const CEL_POLICY_OWNER_API_VERSION = 'policies.kyverno.io/v1beta1';

/** Why `policy` gets no ValidatingAdmissionPolicy, or undefined when it gets one. */
export function validatingPolicySkipReason(
  policy: ValidatingPolicyObject,
  exceptions: readonly CelPolicyExceptionObject[],
): string | undefined {
  const spec = policy.spec ?? {};
  if (spec.autogen?.validatingAdmissionPolicy?.enabled !== true) return `${SKIP}: not enabled.`;
  if (spec.evaluation?.mode === 'JSON') return `${SKIP}: JSON evaluation mode has no admission equivalent.`;
  if (!spec.matchConstraints) return `${SKIP}: the policy has no matchConstraints.`;
  if (autogenConfigs(spec).length > 0) return `${SKIP}: pod controllers autogen is enabled.`;
  const compensating = exceptions
    .filter((e) => Array.isArray((e.spec as { validations?: unknown } | undefined)?.validations))
    .filter((e) => ((e.spec as { validations: unknown[] }).validations ?? []).length > 0)
    .map((e) => `${e.metadata?.namespace ?? ''}/${e.metadata?.name ?? ''}`);
  if (compensating.length > 0) {
    return (
      `policy exception(s) ${compensating.join(', ')} define compensating controls (spec.validations), ` +
      'which a generated ValidatingAdmissionPolicy cannot evaluate'
    );
  }
  return undefined;
}

/** The decision for `policy` with the CEL PolicyExceptions that name it. */
export function buildValidatingPolicyVap(
  policy: ValidatingPolicyObject,
  exceptions: readonly CelPolicyExceptionObject[],
): GenerationDecision {
  const reason = validatingPolicySkipReason(policy, exceptions);
  if (reason !== undefined) return { generate: false, message: reason };
  const source = JSON.parse(JSON.stringify(policy.spec ?? {})) as NonNullable<ValidatingPolicyObject['spec']>;
  const matchConditions: JsonObject[] = [...((source.matchConditions ?? []) as unknown as JsonObject[])];
  const variables: JsonObject[] = [...((source.variables ?? []) as unknown as JsonObject[])];
  for (const exception of exceptions) {
    const spec = exception.spec ?? {};
    for (const condition of spec.matchConditions ?? []) {
      matchConditions.push({ name: condition.name, expression: `!(${condition.expression})` });
    }
    if ((spec.images ?? []).length > 0) {
      variables.push({ name: 'allowedImages', expression: quotedList(spec.images ?? []) });
    }
    if ((spec.allowedValues ?? []).length > 0) {
      variables.push({ name: 'allowedValues', expression: quotedList(spec.allowedValues ?? []) });
    }
  }
  const validations = (source.validations ?? []).map((v) => ({
    ...v,
    expression: v.expression
      .split('exceptions.allowedImages')
      .join('variables.allowedImages')
      .split('exceptions.allowedValues')
      .join('variables.allowedValues'),
  }));
  const vapSpec: JsonObject = { matchConstraints: source.matchConstraints as JsonObject };
  if (variables.length > 0) vapSpec.variables = variables;
  if (validations.length > 0) vapSpec.validations = validations as JsonObject[];
  if ((source.auditAnnotations ?? []).length > 0)
    vapSpec.auditAnnotations = source.auditAnnotations as unknown as JsonObject[];
  if (matchConditions.length > 0) vapSpec.matchConditions = matchConditions;
  const name = generatedPolicyName('ValidatingPolicy', policy.metadata?.name ?? '');
  const owner = {
    apiVersion: CEL_POLICY_OWNER_API_VERSION,
    kind: 'ValidatingPolicy',
    name: policy.metadata?.name ?? '',
    uid: policy.metadata?.uid ?? '',
  };
  const vap: GeneratedObject = {
    apiVersion: `${ADMISSION_REGISTRATION_GROUP}/v1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name, labels: generatedLabels(policy.metadata?.labels, true), ownerReferences: [owner] },
    spec: JSON.parse(JSON.stringify(vapSpec)) as JsonObject,
  };
  const actions = source.validationActions && source.validationActions.length > 0 ? source.validationActions : ['Deny'];
  const binding: GeneratedObject = {
    apiVersion: `${ADMISSION_REGISTRATION_GROUP}/v1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: generatedBindingName(name), labels: generatedLabels(undefined, false), ownerReferences: [owner] },
    spec: { policyName: name, validationActions: [...actions] },
  };
  return { generate: true, objects: { policy: vap, binding } };
}

/**
 * `['a', 'b']` as Kyverno writes it; quotes and backslashes in a value are escaped, so an exception's
 * value stays a string literal and never becomes CEL of its own.
 */
export function quotedList(values: readonly string[]): string {
  return `[${values.map((v) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ')}]`;
}
