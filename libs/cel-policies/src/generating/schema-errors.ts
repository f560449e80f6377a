import { isObject } from '@edict/foundation';
import type { PolicyFieldError } from '../api/types';
import { CEL_IDENTIFIER, MAX_MATCH_CONDITIONS, namedItems, QUALIFIED_NAME } from '../compile/schema-errors';
import type { GeneratingPolicySpec } from './types';
import { specChecks } from '../compile/spec-checks';

const EVALUATION_SWITCHES = ['admission', 'generateExisting', 'synchronize', 'orphanDownstreamOnPolicyDelete'] as const;

/**
 * The structural problems of a GeneratingPolicy spec that its CRD schema and Kyverno's admission
 * check (pkg/cel/policies/gpol/validate.go) refuse: a matchConstraints with resource rules, at
 * least one generate entry, each an expression or a template, booleans where the API has them.
 */
export function generatingSchemaErrors(spec: unknown): PolicyFieldError[] {
  const errors: PolicyFieldError[] = [];
  const { push, list } = specChecks(errors);
  if (!isObject(spec)) {
    push('spec', 'Required value: spec must not be nil');
    return errors;
  }
  const s = spec as GeneratingPolicySpec;
  const boolean = (field: string, value: unknown) => {
    if (value !== undefined && value !== null && typeof value !== 'boolean') {
      push(field, `Invalid value: ${JSON.stringify(value)}: must be a boolean`);
    }
  };

  if (
    !isObject(s.matchConstraints) ||
    list('spec.matchConstraints.resourceRules', s.matchConstraints.resourceRules).length === 0
  ) {
    push('spec.matchConstraints', 'Required value: a matchConstraints with at least one resource rule is required');
  }

  const conditions = list('spec.matchConditions', s.matchConditions);
  if (conditions.length > MAX_MATCH_CONDITIONS) {
    push('spec.matchConditions', `Too many: ${conditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`);
  }
  namedItems('spec.matchConditions', conditions, (name) => QUALIFIED_NAME.test(name) && name.length <= 63, push);
  namedItems('spec.variables', list('spec.variables', s.variables), (name) => CEL_IDENTIFIER.test(name), push);

  const keys = new Set<unknown>();
  list('spec.auditAnnotations', s.auditAnnotations).forEach((annotation, i) => {
    if (!isObject(annotation)) return push(`spec.auditAnnotations[${i}]`, 'Invalid value: must be an object');
    const key = annotation.key;
    if (typeof key !== 'string' || key === '') push(`spec.auditAnnotations[${i}].key`, 'Required value');
    else if (keys.has(key)) push(`spec.auditAnnotations[${i}].key`, `Duplicate value: ${JSON.stringify(key)}`);
    keys.add(key);
  });

  // Kyverno's admission check accepts a policy without `generate` (it generates nothing); the CRD
  // schema refuses an empty list (minItems 1).
  const generations = list('spec.generate', s.generate);
  if (Array.isArray(s.generate) && generations.length === 0) {
    push('spec.generate', 'Invalid value: 0: spec.generate in body should have at least 1 items');
  }
  generations.forEach((generation, i) => {
    const at = `spec.generate[${i}]`;
    if (!isObject(generation)) return push(at, 'Invalid value: must be an object');
    const hasExpression = generation.expression !== undefined && generation.expression !== '';
    const hasTemplate = generation.template !== undefined && generation.template !== null;
    if (hasExpression === hasTemplate) {
      return push(at, 'Invalid value: exactly one of expression or template must be set');
    }
    if (hasExpression && typeof generation.expression !== 'string') {
      return push(`${at}.expression`, `Invalid value: ${JSON.stringify(generation.expression)}: must be a string`);
    }
    if (hasTemplate) {
      const template = generation.template;
      if (!isObject(template)) return push(`${at}.template`, 'Invalid value: must be an object');
      if (typeof template.value !== 'string' || template.value.trim() === '') {
        push(`${at}.template.value`, 'Required value');
      }
      if (template.interpolate !== undefined && typeof template.interpolate !== 'string') {
        push(`${at}.template.interpolate`, `Invalid value: ${JSON.stringify(template.interpolate)}: must be a string`);
      }
    }
  });

  const evaluation = s.evaluation as unknown;
  if (evaluation !== undefined && evaluation !== null) {
    if (!isObject(evaluation)) push('spec.evaluation', 'Invalid value: must be an object');
    else {
      for (const key of EVALUATION_SWITCHES) {
        const value = evaluation[key];
        if (value === undefined || value === null) continue;
        if (!isObject(value)) {
          push(`spec.evaluation.${key}`, 'Invalid value: must be an object');
          continue;
        }
        if (value.enabled !== undefined && typeof value.enabled !== 'boolean') {
          push(`spec.evaluation.${key}.enabled`, `Invalid value: ${JSON.stringify(value.enabled)}: must be a boolean`);
        }
      }
      boolean('spec.evaluation.skipBackgroundRequests', evaluation.skipBackgroundRequests);
    }
  }

  boolean('spec.useServerSideApply', s.useServerSideApply);
  const timeout = s.webhookConfiguration?.timeoutSeconds;
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 1 || timeout > 30)) {
    push(
      'spec.webhookConfiguration.timeoutSeconds',
      `Invalid value: ${JSON.stringify(timeout)}: the timeout value must be between 1 and 30 seconds`,
    );
  }
  return errors;
}
