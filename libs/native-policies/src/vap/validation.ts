/**
 * What kube-apiserver refuses in a ValidatingAdmissionPolicy or its binding (the API's field
 * validation, after its defaults), as field errors: `spec.validations[0].expression: Invalid
 * value: "...": compilation failed: ...`.
 */
import { isObject, labelSelectorError, type JsonObject, type JsonValue, type LabelSelector } from '@edict/foundation';
import { at, fieldErrors, type FieldError } from '../field-errors';
import { qualifiedNameErrors } from '../qualified-name';
import { compilePolicyExpressions } from './compile';
import { nameOf } from './spec';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];
const MAX_AUDIT_ANNOTATIONS = 20;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var void while'.split(
    ' ',
  ),
);

const spec = (object: JsonObject): JsonObject => (isObject(object.spec) ? object.spec : {});
const items = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : []);
const entry = (value: JsonValue): JsonObject => (isObject(value) ? value : {});
const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');

/** Everything kube would refuse in the policy, [] when it is valid. */
export function validatingAdmissionPolicyErrors(policy: JsonObject): FieldError[] {
  const errors: FieldError[] = [...nameErrors(policy)];
  const s = spec(policy);
  const compileErrors = compilePolicyExpressions(policy).errors;
  const compiled = (prefix: string) => compileErrors.filter((e) => e.field.startsWith(prefix));

  if (s.failurePolicy !== undefined && !FAILURE_POLICIES.includes(text(s.failurePolicy))) {
    errors.push(fieldErrors.notSupported('spec.failurePolicy', s.failurePolicy, FAILURE_POLICIES));
  }
  if (s.paramKind !== undefined) errors.push(...paramKindErrors(entry(s.paramKind as JsonValue)));
  if (!isObject(s.matchConstraints)) {
    errors.push(fieldErrors.required('spec.matchConstraints'));
  } else {
    errors.push(...matchResourcesErrors(s.matchConstraints, 'spec.matchConstraints'));
    if (items(s.matchConstraints.resourceRules).length === 0) {
      errors.push(fieldErrors.required('spec.matchConstraints.resourceRules'));
    }
  }
  errors.push(...compiled('spec.matchConditions'));
  items(s.variables).forEach((raw, i) => {
    const name = text(entry(raw).name);
    if (name.trim() === '') errors.push(fieldErrors.required(at('spec.variables', i, 'name'), 'name is not specified'));
    else if (!CEL_IDENTIFIER.test(name) || CEL_RESERVED.has(name)) {
      errors.push(fieldErrors.invalid(at('spec.variables', i, 'name'), name, 'name is not a valid CEL identifier'));
    }
    errors.push(...compiled(at('spec.variables', i) + '.'));
  });
  const validations = items(s.validations);
  const annotations = items(s.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    const detail = 'validations or auditAnnotations must contain at least one item';
    errors.push(
      fieldErrors.required('spec.validations', detail),
      fieldErrors.required('spec.auditAnnotations', detail),
    );
    return errors;
  }
  validations.forEach((raw, i) =>
    errors.push(...validationErrors(entry(raw), i, compiled(at('spec.validations', i) + '.'))),
  );
  if (annotations.length > MAX_AUDIT_ANNOTATIONS) {
    errors.push(
      fieldErrors.invalid(
        'spec.auditAnnotations',
        `${annotations.length} items`,
        `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
      ),
    );
  }
  const keys = new Set<string>();
  const policyName = nameOf(policy);
  annotations.forEach((raw, i) => {
    const key = text(entry(raw).key);
    const keyField = at('spec.auditAnnotations', i, 'key');
    if (policyName === '') errors.push(fieldErrors.invalid(keyField, key, 'requires metadata.name be non-empty'));
    else
      for (const problem of qualifiedNameErrors(`${policyName}/${key}`))
        errors.push(fieldErrors.invalid(keyField, `${policyName}/${key}`, problem));
    errors.push(...compiled(at('spec.auditAnnotations', i) + '.'));
    if (keys.has(key)) errors.push(fieldErrors.duplicate(keyField, key));
    keys.add(key);
  });
  return errors;
}

/** Everything kube would refuse in the binding, [] when it is valid. */
export function validatingAdmissionPolicyBindingErrors(binding: JsonObject): FieldError[] {
  const errors: FieldError[] = [...nameErrors(binding)];
  const s = spec(binding);
  const policyName = text(s.policyName);
  if (policyName === '') errors.push(fieldErrors.required('spec.policyName'));
  else if (!DNS_SUBDOMAIN.test(policyName) || policyName.length > 253) {
    errors.push(fieldErrors.invalid('spec.policyName', policyName, DNS_SUBDOMAIN_MESSAGE));
  }
  if (isObject(s.paramRef)) errors.push(...paramRefErrors(s.paramRef));
  if (isObject(s.matchResources)) errors.push(...matchResourcesErrors(s.matchResources, 'spec.matchResources'));
  const actions = items(s.validationActions).map(text);
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!ACTIONS.includes(action))
      errors.push(fieldErrors.notSupported(at('spec.validationActions', i), action, ACTIONS));
    if (seen.has(action)) errors.push(fieldErrors.duplicate(at('spec.validationActions', i), action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errors.push(
      fieldErrors.invalid(
        'spec.validationActions',
        actions.join(', '),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (seen.size === 0)
    errors.push(fieldErrors.required('spec.validationActions', 'at least one validation action is required'));
  return errors;
}

export function nameErrors(object: JsonObject): FieldError[] {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const name = text(metadata.name);
  if (name === '' && text(metadata.generateName) === '') {
    return [fieldErrors.required('metadata.name', 'name or generateName is required')];
  }
  if (name !== '' && (!DNS_SUBDOMAIN.test(name) || name.length > 253)) {
    return [fieldErrors.invalid('metadata.name', name, DNS_SUBDOMAIN_MESSAGE)];
  }
  return [];
}

function validationErrors(validation: JsonObject, i: number, compileErrors: FieldError[]): FieldError[] {
  const errors = [...compileErrors];
  const base = at('spec.validations', i);
  const message = validation.message;
  if (typeof message === 'string' && message.length > 0) {
    if (message.trim() === '')
      errors.push(fieldErrors.invalid(`${base}.message`, message, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(message.trim()))
      errors.push(fieldErrors.invalid(`${base}.message`, message, 'message must not contain line breaks'));
  }
  const messageExpression = validation.messageExpression;
  if (typeof messageExpression === 'string' && messageExpression.length > 0 && messageExpression.trim() === '') {
    errors.push(fieldErrors.invalid(`${base}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  }
  if (validation.reason !== undefined && !REASONS.includes(text(validation.reason))) {
    errors.push(fieldErrors.notSupported(`${base}.reason`, validation.reason, REASONS));
  }
  return errors;
}

export function paramKindErrors(paramKind: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const apiVersion = text(paramKind.apiVersion);
  if (apiVersion === '') errors.push(fieldErrors.required('spec.paramKind.apiVersion'));
  else {
    const parts = apiVersion.split('/');
    if (parts.length > 2) {
      errors.push(
        fieldErrors.invalid('spec.paramKind.apiVersion', apiVersion, `unexpected GroupVersion string: ${apiVersion}`),
      );
    } else if ((parts.length === 2 ? parts[1] : parts[0]) === '') {
      errors.push(fieldErrors.invalid('spec.paramKind.apiVersion', apiVersion, 'version must be specified'));
    }
  }
  if (text(paramKind.kind) === '') errors.push(fieldErrors.required('spec.paramKind.kind'));
  return errors;
}

export function paramRefErrors(ref: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const name = text(ref.name);
  const hasSelector = isObject(ref.selector);
  if (name !== '') {
    for (const problem of pathSegmentErrors(name))
      errors.push(fieldErrors.invalid('spec.paramRef.name', name, problem));
    if (hasSelector)
      errors.push(fieldErrors.forbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errors.push(...selectorErrors(ref.selector as LabelSelector, 'spec.paramRef.selector'));
    if (name !== '')
      errors.push(fieldErrors.forbidden('spec.paramRef.selector', 'name and selector are mutually exclusive'));
  }
  if (name === '' && !hasSelector)
    errors.push(fieldErrors.required('spec.paramRef', 'one of name or selector must be specified'));
  const action = ref.parameterNotFoundAction;
  if (action !== undefined && action !== 'Allow' && action !== 'Deny') {
    errors.push(fieldErrors.notSupported('spec.paramRef.parameterNotFoundAction', action, ['Deny', 'Allow']));
  }
  return errors;
}

export function matchResourcesErrors(match: JsonObject, base: string): FieldError[] {
  const errors: FieldError[] = [];
  if (match.matchPolicy !== undefined && !MATCH_POLICIES.includes(text(match.matchPolicy))) {
    errors.push(fieldErrors.notSupported(`${base}.matchPolicy`, match.matchPolicy, MATCH_POLICIES));
  }
  for (const key of ['namespaceSelector', 'objectSelector'] as const) {
    if (isObject(match[key])) errors.push(...selectorErrors(match[key] as LabelSelector, `${base}.${key}`));
  }
  for (const key of ['resourceRules', 'excludeResourceRules'] as const) {
    items(match[key]).forEach((rule, i) => errors.push(...ruleErrors(entry(rule), at(base, key, i))));
  }
  return errors;
}

function selectorErrors(selector: LabelSelector, field: string): FieldError[] {
  const problem = labelSelectorError(selector);
  return problem === undefined ? [] : [fieldErrors.invalid(field, JSON.stringify(selector), problem)];
}

function ruleErrors(rule: JsonObject, base: string): FieldError[] {
  const errors: FieldError[] = [];
  const names = items(rule.resourceNames).map(text);
  const seen = new Set<string>();
  names.forEach((name, i) => {
    for (const problem of pathSegmentErrors(name))
      errors.push(fieldErrors.invalid(at(base, 'resourceNames', i), name, problem));
    if (seen.has(name)) errors.push(fieldErrors.duplicate(at(base, 'resourceNames', i), name));
    seen.add(name);
  });
  const operations = items(rule.operations).map(text);
  if (operations.length === 0) errors.push(fieldErrors.required(`${base}.operations`));
  if (operations.length > 1 && operations.includes('*')) {
    errors.push(
      fieldErrors.invalid(
        `${base}.operations`,
        operations.join(', '),
        "if '*' is present, must not specify other operations",
      ),
    );
  }
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errors.push(fieldErrors.notSupported(at(base, 'operations', i), op, OPERATIONS));
  });
  const groups = items(rule.apiGroups).map(text);
  if (groups.length === 0) errors.push(fieldErrors.required(`${base}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) {
    errors.push(
      fieldErrors.invalid(
        `${base}.apiGroups`,
        groups.join(', '),
        "if '*' is present, must not specify other API groups",
      ),
    );
  }
  const versions = items(rule.apiVersions).map(text);
  if (versions.length === 0) errors.push(fieldErrors.required(`${base}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) {
    errors.push(
      fieldErrors.invalid(
        `${base}.apiVersions`,
        versions.join(', '),
        "if '*' is present, must not specify other API versions",
      ),
    );
  }
  versions.forEach((v, i) => {
    if (v === '') errors.push(fieldErrors.required(at(base, 'apiVersions', i)));
  });
  errors.push(...resourcesErrors(items(rule.resources).map(text), `${base}.resources`));
  if (rule.scope !== undefined && !SCOPES.includes(text(rule.scope))) {
    errors.push(fieldErrors.notSupported(`${base}.scope`, rule.scope, SCOPES));
  }
  return errors;
}

function resourcesErrors(resources: string[], field: string): FieldError[] {
  const errors: FieldError[] = [];
  if (resources.length === 0) errors.push(fieldErrors.required(field));
  const wildcardSub = new Set<string>();
  const wildcardRes = new Set<string>();
  let double = false;
  let single = false;
  let plain = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errors.push(fieldErrors.required(at(field, i)));
      return;
    }
    if (resSub === '*/*') double = true;
    if (resSub === '*') single = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      plain = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (wildcardSub.has(res))
      errors.push(fieldErrors.invalid(at(field, i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (wildcardRes.has(sub))
      errors.push(fieldErrors.invalid(at(field, i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') wildcardSub.add(res);
    if (res === '*') wildcardRes.add(sub);
  });
  if (resources.length > 1 && double) {
    errors.push(
      fieldErrors.invalid(field, resources.join(', '), "if '*/*' is present, must not specify other resources"),
    );
  }
  if (single && plain) {
    errors.push(
      fieldErrors.invalid(
        field,
        resources.join(', '),
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  }
  return errors;
}

/** kube's path.ValidatePathSegmentName: a name usable in a URL path segment. */
function pathSegmentErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errors: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errors.push(`may not contain '${illegal}'`);
  return errors;
}
