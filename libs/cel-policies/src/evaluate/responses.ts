import type { RuleResponse } from '@edict/engine';
import type { CompiledCelPolicyException } from '../exceptions/compiled-exception';

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
