import { isObject } from '@edict/foundation';
import type { PolicyFieldError, ValidatingPolicySpec } from '../api/types';
import { specChecks } from './spec-checks';

const ACTIONS = ['Deny', 'Audit', 'Warn'];
const FAILURE_POLICIES = ['Ignore', 'Fail'];
const MODES = ['Kubernetes', 'JSON'];
const AUTHORIZATION_MODES = ['Envoy', 'HTTP'];
const REASONS = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];
export const MAX_MATCH_CONDITIONS = 64;
export const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
export const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/**
 * The structural problems of a ValidatingPolicy spec that its CRD schema and Kyverno's admission
 * check refuse, in their words (`Unsupported value: "x": supported values: "Deny", "Audit", "Warn"`).
 */
export function schemaErrors(spec: unknown): PolicyFieldError[] {
  const errors: PolicyFieldError[] = [];
  const { push, oneOf, list } = specChecks(errors);
  if (!isObject(spec)) {
    push('spec', 'Required value');
    return errors;
  }
  const s = spec as ValidatingPolicySpec;

  oneOf('spec.failurePolicy', s.failurePolicy, FAILURE_POLICIES);
  const requested = s.evaluation?.mode;
  if (typeof requested === 'string' && AUTHORIZATION_MODES.includes(requested)) {
    // Kyverno's Envoy and HTTP modes serve its authorization servers; Edict has none: refused, never ignored.
    push(
      'spec.evaluation.mode',
      `Unsupported value: ${JSON.stringify(requested)}: Edict evaluates the modes "Kubernetes" and "JSON" only (the Envoy and HTTP authorization modes are not supported)`,
    );
  } else {
    oneOf('spec.evaluation.mode', requested, MODES);
  }
  const mode = requested === undefined || requested === 'Kubernetes' ? 'Kubernetes' : 'JSON';

  const actions = list('spec.validationActions', s.validationActions);
  const seen = new Set<unknown>();
  actions.forEach((action, i) => {
    oneOf(`spec.validationActions[${i}]`, action, ACTIONS);
    if (seen.has(action)) push(`spec.validationActions[${i}]`, `Duplicate value: ${JSON.stringify(action)}`);
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    push(
      'spec.validationActions',
      `Invalid value: ${JSON.stringify(actions)}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`,
    );
  }

  if (
    mode === 'Kubernetes' &&
    (!isObject(s.matchConstraints) ||
      list('spec.matchConstraints.resourceRules', s.matchConstraints.resourceRules).length === 0)
  ) {
    push('spec.matchConstraints', 'Required value: a matchConstraints with at least one resource rule is required');
  }

  const validations = list('spec.validations', s.validations);
  const annotations = list('spec.auditAnnotations', s.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    push('spec.validations', 'Required value: validations and auditAnnotations may not both be empty');
  }
  validations.forEach((validation, i) => {
    if (!isObject(validation)) return push(`spec.validations[${i}]`, 'Invalid value: must be an object');
    if (typeof validation.message === 'string' && validation.message.includes('\n')) {
      push(
        `spec.validations[${i}].message`,
        `Invalid value: ${JSON.stringify(validation.message)}: message must not contain line breaks`,
      );
    }
    oneOf(`spec.validations[${i}].reason`, validation.reason, REASONS);
  });
  auditAnnotationItems(annotations, push);

  const conditions = list('spec.matchConditions', s.matchConditions);
  if (conditions.length > MAX_MATCH_CONDITIONS) {
    push('spec.matchConditions', `Too many: ${conditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`);
  }
  namedItems('spec.matchConditions', conditions, (name) => QUALIFIED_NAME.test(name) && name.length <= 63, push);
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

/** Items of a list keyed by `name` (matchConditions, variables): each named, validly, once. */
export function namedItems(
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

/** spec.auditAnnotations' items: each an object with a key, every key once. */
export function auditAnnotationItems(items: unknown[], push: (field: string, message: string) => void): void {
  const keys = new Set<unknown>();
  items.forEach((annotation, i) => {
    if (!isObject(annotation)) return push(`spec.auditAnnotations[${i}]`, 'Invalid value: must be an object');
    const key = annotation.key;
    if (typeof key !== 'string' || key === '') push(`spec.auditAnnotations[${i}].key`, 'Required value');
    else if (keys.has(key)) push(`spec.auditAnnotations[${i}].key`, `Duplicate value: ${JSON.stringify(key)}`);
    keys.add(key);
  });
}
