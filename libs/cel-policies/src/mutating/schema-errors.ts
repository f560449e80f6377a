import { isObject } from '@edict/foundation';
import type { PolicyFieldError } from '../api/types';
import type { MutatingPolicySpec } from './types';
import { specChecks } from '../compile/spec-checks';
import { auditAnnotationItems } from '../compile/schema-errors';

const FAILURE_POLICIES = ['Ignore', 'Fail'];
const REINVOCATION_POLICIES = ['Never', 'IfNeeded'];
const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'];
const MODES = ['Kubernetes', 'JSON'];
const MAX_MATCH_CONDITIONS = 64;
/** Each mutation's expression is bounded by the CEL limits; the count of mutations is bounded here. */
export const MAX_MUTATIONS = 64;
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/**
 * The structural problems of a MutatingPolicy spec that its CRD schema, Kubernetes' Mutation
 * validation and Kyverno's admission check refuse, in their words.
 */
export function mutatingSchemaErrors(spec: unknown): PolicyFieldError[] {
  const errors: PolicyFieldError[] = [];
  const { push, oneOf, list } = specChecks(errors);
  if (!isObject(spec)) {
    push('spec', 'Required value: spec must not be nil');
    return errors;
  }
  const s = spec as MutatingPolicySpec;

  oneOf('spec.failurePolicy', s.failurePolicy, FAILURE_POLICIES);
  oneOf('spec.reinvocationPolicy', s.reinvocationPolicy, REINVOCATION_POLICIES);
  const mode = s.evaluation?.mode;
  if (mode === 'JSON') {
    // Kyverno's JSON mode mutates plain JSON payloads; Edict runs MutatingPolicies on Kubernetes objects only.
    push(
      'spec.evaluation.mode',
      'Unsupported value: "JSON": Edict evaluates MutatingPolicies in the "Kubernetes" mode only',
    );
  } else oneOf('spec.evaluation.mode', mode, MODES);
  // A policy run neither at admission nor on existing resources would never run (Kyverno refuses it too).
  if (s.evaluation?.admission?.enabled === false && s.evaluation?.mutateExisting?.enabled !== true) {
    push(
      'spec.evaluation',
      'Invalid value: admission and mutateExisting are both disabled: a MutatingPolicy needs at least one of them',
    );
  }

  if (
    !isObject(s.matchConstraints) ||
    list('spec.matchConstraints.resourceRules', s.matchConstraints.resourceRules).length === 0
  ) {
    push('spec.matchConstraints', 'Required value: a matchConstraints with at least one resource rule is required');
  }
  const target = s.targetMatchConstraints;
  if (target !== undefined && target !== null) {
    if (!isObject(target)) push('spec.targetMatchConstraints', 'Invalid value: must be an object');
    else {
      list('spec.targetMatchConstraints.resourceRules', target.resourceRules);
      if (target.expression !== undefined && typeof target.expression !== 'string')
        push('spec.targetMatchConstraints.expression', 'Invalid value: must be a string');
    }
  }

  const mutations = list('spec.mutations', s.mutations);
  if (mutations.length > MAX_MUTATIONS) {
    push('spec.mutations', `Too many: ${mutations.length}: must have at most ${MAX_MUTATIONS} items`);
  }
  mutations.forEach((mutation, i) => {
    const at = `spec.mutations[${i}]`;
    if (!isObject(mutation)) return push(at, 'Invalid value: must be an object');
    const patchType = mutation.patchType;
    if (patchType === undefined || patchType === '') return push(`${at}.patchType`, 'Required value');
    oneOf(`${at}.patchType`, patchType, PATCH_TYPES);
    if (patchType === 'ApplyConfiguration') {
      if (!isObject(mutation.applyConfiguration))
        push(
          `${at}.applyConfiguration`,
          'Required value: applyConfiguration is required when patchType is ApplyConfiguration',
        );
      if (mutation.jsonPatch !== undefined)
        push(`${at}.jsonPatch`, 'Forbidden: jsonPatch must not be set when patchType is ApplyConfiguration');
    }
    if (patchType === 'JSONPatch') {
      if (!isObject(mutation.jsonPatch))
        push(`${at}.jsonPatch`, 'Required value: jsonPatch is required when patchType is JSONPatch');
      if (mutation.applyConfiguration !== undefined)
        push(`${at}.applyConfiguration`, 'Forbidden: applyConfiguration must not be set when patchType is JSONPatch');
    }
  });

  auditAnnotationItems(list('spec.auditAnnotations', s.auditAnnotations), push);

  const conditions = list('spec.matchConditions', s.matchConditions);
  if (conditions.length > MAX_MATCH_CONDITIONS) {
    push('spec.matchConditions', `Too many: ${conditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`);
  }
  // Kyverno's CRD keys match conditions by name (unique, required) without Kubernetes' qualified-name rule.
  namedItems('spec.matchConditions', conditions, () => true, push);
  const targetConditions = list('spec.targetMatchConditions', s.targetMatchConditions);
  if (targetConditions.length > MAX_MATCH_CONDITIONS) {
    push(
      'spec.targetMatchConditions',
      `Too many: ${targetConditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`,
    );
  }
  namedItems('spec.targetMatchConditions', targetConditions, () => true, push);
  namedItems('spec.variables', list('spec.variables', s.variables), (name) => CEL_IDENTIFIER.test(name), push);

  const timeout = s.webhookConfiguration?.timeoutSeconds;
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 1 || timeout > 30)) {
    push(
      'spec.webhookConfiguration.timeoutSeconds',
      `Invalid value: ${JSON.stringify(timeout)}: the timeout value must be between 1 and 30 seconds`,
    );
  }
  const controllers = s.autogen?.podControllers?.controllers;
  if (controllers !== undefined) list('spec.autogen.podControllers.controllers', controllers);
  return errors;
}

function namedItems(
  path: string,
  items: unknown[],
  validName: (name: string) => boolean,
  push: (field: string, message: string) => void,
): void {
  const names = new Set<string>();
  items.forEach((item, i) => {
    if (!isObject(item)) return push(`${path}[${i}]`, 'Invalid value: must be an object');
    const name = item.name;
    if (typeof name !== 'string' || name === '') return push(`${path}[${i}].name`, 'Required value');
    if (!validName(name)) push(`${path}[${i}].name`, `Invalid value: ${JSON.stringify(name)}: not a valid name`);
    else if (names.has(name)) push(`${path}[${i}].name`, `Duplicate value: ${JSON.stringify(name)}`);
    names.add(name);
  });
}
