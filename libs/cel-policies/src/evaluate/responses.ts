import type { PolicyResponse, RuleResponse } from '@edict/engine';
import { isObject, type KubeObject } from '@edict/foundation';
import type { CompiledValidatingPolicy } from '../compile/compiled-policy';
import type { CompiledCelPolicyException } from '../exceptions/compiled-exception';
import { namespaceOf } from './attributes';
import type { CelPolicyInput } from './input';

// The rule responses Kyverno's ValidatingPolicy engine gives: one per policy, its name empty (the
// policy is the rule), except for the engine's own steps (`match`, `evaluation`, `exception`).

/** The report property naming the validation that failed or errored (its index). */
export const VALIDATION_INDEX = 'cel.validationIndex';

/** Every validation holds; the audit annotations go to the report as the result's properties. */
export function passRule(annotations: Record<string, string>): RuleResponse {
  const rule: RuleResponse = { name: '', type: 'Validation', status: 'pass', message: 'success' };
  if (Object.keys(annotations).length > 0) rule.properties = { ...annotations };
  return rule;
}

/** A failed validation: its message, its index and the audit annotations as properties. */
export function failRule(
  message: string,
  annotations: Record<string, string>,
  index: number,
  reason?: string,
): RuleResponse {
  const rule: RuleResponse = {
    name: '',
    type: 'Validation',
    status: 'fail',
    message,
    properties: { ...annotations, [VALIDATION_INDEX]: String(index) },
  };
  if (reason) rule.reason = reason;
  return rule;
}

/** A validation whose expression errored (or did not give a bool). */
export function validationErrorRule(cause: string, index: number): RuleResponse {
  return {
    name: '',
    type: 'Validation',
    status: 'error',
    message: `error: ${cause}`,
    properties: { [VALIDATION_INDEX]: String(index) },
  };
}

/** The match conditions do not hold: Kyverno reports the policy as skipped. */
export function skipRule(): RuleResponse {
  return { name: '', type: 'Validation', status: 'skip', message: 'skip' };
}

/** Kyverno's error responses read "<what failed>: <cause>". */
export function errorRule(name: string, what: string, cause: string): RuleResponse {
  return { name, type: 'Validation', status: 'error', message: `${what}: ${cause}` };
}

/**
 * Exceptions matched: the first one's reportResult decides (skip, or pass), and the response names
 * them all (`namespace/name`).
 */
export function exceptionRule(exceptions: readonly CompiledCelPolicyException[]): RuleResponse {
  const keys = exceptions.map((exception) => exception.key);
  const pass = exceptions[0]?.reportResult === 'pass';
  return {
    name: 'exception',
    type: 'Validation',
    status: pass ? 'pass' : 'skip',
    message: `rule is ${pass ? 'passed' : 'skipped'} due to policy exception: ${keys.join(', ')}`,
    exceptions: keys,
  };
}

/** What a response names of its policy. */
export type ResponsePolicy = Pick<
  CompiledValidatingPolicy,
  'name' | 'namespace' | 'validationActions' | 'failurePolicy' | 'mode'
> & {
  readonly kind: PolicyResponse['policy']['kind'];
};

/**
 * A CEL policy's response (ValidatingPolicy and ImageValidatingPolicy alike): the policy, the
 * resource (the payload in JSON mode, the old object of a DELETE), its rules, its actions and failure
 * policy, the audit annotations given, and the failures as warnings under the Warn action.
 */
export function policyResponse(
  compiled: ResponsePolicy,
  input: CelPolicyInput,
  rules: RuleResponse[],
  auditAnnotations?: Record<string, string>,
): PolicyResponse {
  const deny = compiled.validationActions.includes('Deny');
  const result: PolicyResponse = {
    policy: {
      name: compiled.name,
      kind: compiled.kind,
      ...(compiled.namespace !== undefined ? { namespace: compiled.namespace } : {}),
    },
    resource: resourceOf(compiled, input),
    rules,
    validationFailureAction: deny ? 'Enforce' : 'Audit',
    validationActions: compiled.validationActions,
    failurePolicy: compiled.failurePolicy,
  };
  if (auditAnnotations) result.auditAnnotations = auditAnnotations;
  if (compiled.validationActions.includes('Warn')) {
    const warnings = rules.filter((rule) => rule.status === 'fail').map((rule) => rule.message);
    if (warnings.length > 0) result.warnings = warnings;
  }
  return result;
}

function resourceOf(compiled: ResponsePolicy, input: CelPolicyInput): PolicyResponse['resource'] {
  const object: Partial<KubeObject> | undefined =
    compiled.mode === 'JSON'
      ? isObject(input.jsonPayload)
        ? (input.jsonPayload as Partial<KubeObject>)
        : undefined
      : input.request.operation === 'DELETE'
        ? (input.request.oldResource ?? input.request.resource)
        : (input.request.resource ?? input.request.oldResource);
  const metadata = isObject(object?.metadata) ? object.metadata : {};
  const namespace = compiled.mode === 'JSON' ? (metadata.namespace ?? '') : namespaceOf(object as KubeObject);
  return {
    apiVersion: typeof object?.apiVersion === 'string' ? object.apiVersion : '',
    kind: typeof object?.kind === 'string' ? object.kind : '',
    name: typeof metadata.name === 'string' ? metadata.name : '',
    ...(namespace ? { namespace } : {}),
  };
}
