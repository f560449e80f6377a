import type { PolicyResponse, RuleResponse } from '@edict/engine';
import { isObject, type KubeObject } from '@edict/foundation';
import { namespaceOf } from '../evaluate/attributes';
import type { CelPolicyInput } from '../evaluate/input';
import type { CompiledImageValidatingPolicy } from './compiled-policy';

// The rule responses Kyverno's ImageValidatingPolicy engine gives: one per policy, named after the
// policy, of type ImageVerify; its own steps (`match`, `evaluation`, `exception`, `mutateDigest`)
// answer under their names.

export function passRule(compiled: CompiledImageValidatingPolicy, annotations: Record<string, string>): RuleResponse {
  const rule: RuleResponse = { name: compiled.name, type: 'ImageVerify', status: 'pass', message: 'success' };
  if (Object.keys(annotations).length > 0) rule.properties = { ...annotations };
  return rule;
}

export function failRule(
  compiled: CompiledImageValidatingPolicy,
  message: string,
  annotations: Record<string, string>,
  reason?: string,
): RuleResponse {
  const rule: RuleResponse = { name: compiled.name, type: 'ImageVerify', status: 'fail', message };
  if (Object.keys(annotations).length > 0) rule.properties = { ...annotations };
  if (reason) rule.reason = reason;
  return rule;
}

/** Kyverno's error responses read "<what failed>: <cause>". */
export function errorRule(name: string, what: string, cause: string): RuleResponse {
  return { name, type: 'ImageVerify', status: 'error', message: `${what}: ${cause}` };
}

export function policyResponse(
  compiled: CompiledImageValidatingPolicy,
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
  if (auditAnnotations && Object.keys(auditAnnotations).length > 0) {
    result.auditAnnotations = Object.fromEntries(
      Object.entries(auditAnnotations).map(([key, value]) => [`${compiled.name}/${key}`, value]),
    );
  }
  if (compiled.validationActions.includes('Warn')) {
    const warnings = rules.filter((rule) => rule.status === 'fail').map((rule) => rule.message);
    if (warnings.length > 0) result.warnings = warnings;
  }
  return result;
}

function resourceOf(compiled: CompiledImageValidatingPolicy, input: CelPolicyInput): PolicyResponse['resource'] {
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
