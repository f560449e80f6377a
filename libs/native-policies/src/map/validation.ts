/**
 * What kube-apiserver refuses in a MutatingAdmissionPolicy or its binding (the API's field
 * validation after its defaults), as field errors naming each field:
 * `spec.mutations[0].applyConfiguration.expression: Invalid value: "...": compilation failed: ...`.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { at, fieldErrors, type FieldError } from '../field-errors';
import { matchResourcesErrors, nameErrors, paramKindErrors, paramRefErrors } from '../vap/validation';
import { compileMutatingPolicyExpressions } from './compile';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const spec = (object: JsonObject): JsonObject => (isObject(object.spec) ? object.spec : {});
const items = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : []);
const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');

/** Everything kube would refuse in the policy, [] when it is valid. */
export function mutatingAdmissionPolicyErrors(policy: JsonObject): FieldError[] {
  const errors: FieldError[] = [...nameErrors(policy)];
  const s = spec(policy);
  if (s.failurePolicy !== undefined && !FAILURE_POLICIES.includes(text(s.failurePolicy))) {
    errors.push(fieldErrors.notSupported('spec.failurePolicy', s.failurePolicy, FAILURE_POLICIES));
  }
  if (s.reinvocationPolicy !== undefined && !REINVOCATION_POLICIES.includes(text(s.reinvocationPolicy))) {
    errors.push(fieldErrors.notSupported('spec.reinvocationPolicy', s.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  if (isObject(s.paramKind)) errors.push(...paramKindErrors(s.paramKind));
  if (!isObject(s.matchConstraints)) {
    errors.push(fieldErrors.required('spec.matchConstraints'));
  } else {
    errors.push(...matchResourcesErrors(s.matchConstraints, 'spec.matchConstraints'));
    if (items(s.matchConstraints.resourceRules).length === 0) {
      errors.push(fieldErrors.required('spec.matchConstraints.resourceRules'));
    }
  }
  items(s.variables).forEach((raw, i) => {
    const name = text(isObject(raw) ? raw.name : undefined);
    if (name.trim() === '') errors.push(fieldErrors.required(at('spec.variables', i, 'name'), 'name is not specified'));
    else if (!CEL_IDENTIFIER.test(name)) {
      errors.push(fieldErrors.invalid(at('spec.variables', i, 'name'), name, 'name is not a valid CEL identifier'));
    }
  });
  if (items(s.mutations).length === 0) {
    errors.push(fieldErrors.required('spec.mutations', 'mutations must contain at least one item'));
  }
  errors.push(...compileMutatingPolicyExpressions(policy).errors);
  return errors;
}

/** Everything kube would refuse in the binding, [] when it is valid. */
export function mutatingAdmissionPolicyBindingErrors(binding: JsonObject): FieldError[] {
  const errors: FieldError[] = [...nameErrors(binding)];
  const s = spec(binding);
  const policyName = text(s.policyName);
  if (policyName === '') errors.push(fieldErrors.required('spec.policyName'));
  else if (!DNS_SUBDOMAIN.test(policyName) || policyName.length > 253) {
    errors.push(fieldErrors.invalid('spec.policyName', policyName, 'must be a lowercase RFC 1123 subdomain'));
  }
  if (isObject(s.paramRef)) errors.push(...paramRefErrors(s.paramRef));
  if (isObject(s.matchResources)) errors.push(...matchResourcesErrors(s.matchResources, 'spec.matchResources'));
  return errors;
}
