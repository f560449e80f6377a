import type { RuleResponse } from '@edict/engine';
import type { CompiledCelPolicyException } from '../exceptions/compiled-exception';

// The rule responses Kyverno's ValidatingPolicy engine gives: one per policy, its name empty (the
// policy is the rule), except for the engine's own steps (`match`, `evaluation`, `exception`).

export function passRule(): RuleResponse {
  return { name: '', type: 'Validation', status: 'pass', message: 'success' };
}

/** A failed validation; the audit annotations go to the report as the result's properties. */
export function failRule(message: string, annotations: Record<string, string>, reason?: string): RuleResponse {
  const rule: RuleResponse = { name: '', type: 'Validation', status: 'fail', message };
  if (Object.keys(annotations).length > 0) rule.properties = { ...annotations };
  if (reason) rule.reason = reason;
  return rule;
}

/** The match conditions do not hold: Kyverno reports the policy as skipped. */
export function skipRule(): RuleResponse {
  return { name: '', type: 'Validation', status: 'skip', message: 'skip' };
}

/** Kyverno's error responses read "<what failed>: <cause>". */
export function errorRule(name: string, what: string, cause: string): RuleResponse {
  return { name, type: 'Validation', status: 'error', message: `${what}: ${cause}` };
}

/** Exceptions matched: skip, or pass when every one of them asks for it (reportResult). */
export function exceptionRule(exceptions: readonly CompiledCelPolicyException[]): RuleResponse {
  const keys = exceptions.map((exception) => exception.key);
  const pass = exceptions.every((exception) => exception.reportResult === 'pass');
  return {
    name: 'exception',
    type: 'Validation',
    status: pass ? 'pass' : 'skip',
    message: `rule is skipped due to policy exception: ${keys.join(', ')}`,
    exceptions: keys,
  };
}
