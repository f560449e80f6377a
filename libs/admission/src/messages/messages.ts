import type { PolicyResponse, RuleResponse } from '@edict/engine';
import { marshalNestedStringMap } from './go-yaml';

/** Rules a deny message or warning lists: everything that did not pass and was not skipped. */
const reportsTrouble = (rule: RuleResponse) => rule.status !== 'pass' && rule.status !== 'skip';

/**
 * Kyverno's deny message (GetBlockedMessages): a blank line, the resource as `Kind/namespace/name`
 * (namespace empty for cluster-scoped objects), then `policy: {rule: message}` as yaml.v2 prints it.
 * Every listed policy appears by name only (no namespace), rules sorted, `""` when nothing failed.
 */
export function blockedMessage(responses: readonly PolicyResponse[]): string {
  if (responses.length === 0) return '';
  const failures = new Map<string, Map<string, string>>();
  for (const response of responses) {
    const reasons = new Map<string, string>();
    for (const rule of response.rules) {
      if (reportsTrouble(rule) && rule.message !== 'preconditions not met') reasons.set(rule.name, rule.message);
    }
    if (reasons.size === 0) continue;
    // Two responses for one policy name (a Policy and a ClusterPolicy): like Go's map, the last wins.
    failures.set(response.policy.name, reasons);
  }
  if (failures.size === 0) return '';
  const resource = (responses[0] as PolicyResponse).resource;
  const name = `${resource.kind}/${resource.namespace ?? ''}/${resource.name}`;
  return `\n\nresource ${name} was blocked due to the following policies \n\n${marshalNestedStringMap(failures)}`;
}

/** Kyverno's admission warnings (GetWarningMessages): `policy <name>.<rule>: <message>` per troubled rule. */
export function warningMessages(responses: readonly PolicyResponse[]): string[] {
  const warnings: string[] = [];
  for (const response of responses) {
    for (const rule of response.rules) {
      if (reportsTrouble(rule)) warnings.push(`policy ${response.policy.name}.${rule.name}: ${rule.message}`);
    }
  }
  return warnings;
}

/** Kyverno's GetFailedRulesWithErrors rendered with Go's `%v`: `[rule: message other: message]`. */
export function failedRulesWithErrors(response: PolicyResponse): string {
  const entries = response.rules
    .filter((rule) => rule.status === 'fail' || rule.status === 'error')
    .map((rule) => `${rule.name}: ${rule.message}`);
  return `[${entries.join(' ')}]`;
}
