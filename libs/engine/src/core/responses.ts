import type { RuleResponse, RuleStatus, RuleType } from './types';
import type { Rule } from '../policy/types';
import { errorMessage } from '@edict/foundation';

/** Builds a rule response carrying the rule's report properties, as every Kyverno handler does. */
export function ruleResponse(rule: Rule, type: RuleType, status: RuleStatus, message: string): RuleResponse {
  const response: RuleResponse = { name: rule.name, type, status, message };
  if (rule.reportProperties) response.properties = rule.reportProperties;
  return response;
}

/** Kyverno's error responses read "<what failed>: <cause>". */
export function ruleError(rule: Rule, type: RuleType, what: string, cause: unknown): RuleResponse {
  return ruleResponse(rule, type, 'error', `${what}: ${errorMessage(cause)}`);
}
