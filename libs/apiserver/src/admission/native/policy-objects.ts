/**
 * ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings as kube-apiserver stores
 * them: defaulted (failurePolicy Fail; matchConstraints/matchResources with matchPolicy Equivalent,
 * empty selectors and rules of scope `*`) and checked (kube's field errors, expressions that do not
 * compile included: 422 Invalid), whatever version they are written in.
 */
import {
  mutatingAdmissionPolicyBindingErrors,
  mutatingAdmissionPolicyErrors,
  validatingAdmissionPolicyBindingErrors,
  validatingAdmissionPolicyErrors,
  type FieldError,
} from '@edict/native-policies';
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { ResourceType } from '../../registry/resource-type';
import { invalid, type StatusCause } from '../../status';

const GROUP = 'admissionregistration.k8s.io';

type PolicyKind = 'validatingPolicy' | 'validatingBinding' | 'mutatingPolicy' | 'mutatingBinding';

const KINDS: Readonly<Record<string, PolicyKind>> = {
  validatingadmissionpolicies: 'validatingPolicy',
  validatingadmissionpolicybindings: 'validatingBinding',
  mutatingadmissionpolicies: 'mutatingPolicy',
  mutatingadmissionpolicybindings: 'mutatingBinding',
};

function policyKind(type: Pick<ResourceType, 'group' | 'plural'>): PolicyKind | undefined {
  return type.group === GROUP ? KINDS[type.plural] : undefined;
}

/** The object with kube's defaults; other types' objects unchanged. */
export function withAdmissionPolicyDefaults(type: ResourceType, body: JsonObject): JsonObject {
  const kind = policyKind(type);
  if (!kind || !isObject(body.spec)) return body;
  const spec: JsonObject = { ...body.spec };
  if (kind === 'validatingPolicy' || kind === 'mutatingPolicy') {
    spec.failurePolicy ??= 'Fail';
    if (isObject(spec.matchConstraints)) spec.matchConstraints = defaultedMatch(spec.matchConstraints);
  } else if (isObject(spec.matchResources)) {
    spec.matchResources = defaultedMatch(spec.matchResources);
  }
  return { ...body, spec };
}

function defaultedMatch(match: JsonObject): JsonObject {
  const out: JsonObject = { ...match };
  out.matchPolicy ??= 'Equivalent';
  out.namespaceSelector ??= {};
  out.objectSelector ??= {};
  for (const field of ['resourceRules', 'excludeResourceRules']) {
    if (!Array.isArray(out[field])) continue;
    out[field] = (out[field] as JsonValue[]).map((rule) =>
      isObject(rule) && rule.scope === undefined ? { ...rule, scope: '*' } : rule,
    );
  }
  return out;
}

/** Refuses a policy or binding kube would refuse (422 Invalid, every field error). */
export function checkAdmissionPolicy(type: ResourceType, object: JsonObject): void {
  const kind = policyKind(type);
  if (!kind) return;
  const errors = fieldErrorsOf(kind, object).filter((error) => !error.field.startsWith('metadata.'));
  if (errors.length === 0) return;
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  throw invalid({ group: type.group, kind: type.kind, name }, errors.map(statusCause));
}

function fieldErrorsOf(kind: PolicyKind, object: JsonObject): FieldError[] {
  switch (kind) {
    case 'validatingPolicy':
      return validatingAdmissionPolicyErrors(object);
    case 'validatingBinding':
      return validatingAdmissionPolicyBindingErrors(object);
    case 'mutatingPolicy':
      return mutatingAdmissionPolicyErrors(object);
    case 'mutatingBinding':
      return mutatingAdmissionPolicyBindingErrors(object);
  }
}

/** kube's cause reasons, from the wording field.Error gives each type of error. */
const REASONS: readonly (readonly [string, string])[] = [
  ['Required value', 'FieldValueRequired'],
  ['Invalid value', 'FieldValueInvalid'],
  ['Unsupported value', 'FieldValueNotSupported'],
  ['Duplicate value', 'FieldValueDuplicate'],
  ['Too many', 'FieldValueTooMany'],
  ['Too long', 'FieldValueTooLong'],
  ['Forbidden', 'FieldValueForbidden'],
];

function statusCause(error: FieldError): StatusCause {
  const reason = REASONS.find(([prefix]) => error.message.startsWith(prefix))?.[1] ?? 'FieldValueInvalid';
  return { reason, message: error.message, field: error.field };
}
