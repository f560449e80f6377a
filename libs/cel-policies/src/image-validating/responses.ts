import type { PolicyResponse, RuleResponse } from '@edict/engine';
import { policyResponse as celPolicyResponse } from '../evaluate/responses';
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

/** The policy's response, its audit annotations keyed `<policy>/<key>` as Kyverno's ivpol engine writes them. */
export function policyResponse(
  compiled: CompiledImageValidatingPolicy,
  input: CelPolicyInput,
  rules: RuleResponse[],
  auditAnnotations?: Record<string, string>,
): PolicyResponse {
  const prefixed =
    auditAnnotations && Object.keys(auditAnnotations).length > 0
      ? Object.fromEntries(Object.entries(auditAnnotations).map(([key, value]) => [`${compiled.name}/${key}`, value]))
      : undefined;
  return celPolicyResponse(compiled, input, rules, prefixed);
}
