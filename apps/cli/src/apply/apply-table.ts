import { isScored, type Policy, type RuleStatus } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { CelEvaluatedResponse, EvaluatedResponse } from '@edict/kyverno-test';
import { renderTable } from '../output/table';

const HEADERS = ['ID', 'POLICY', 'RULE', 'RESOURCE', 'RESULT', 'REASON'];

const RESULT: Record<RuleStatus, string> = { pass: 'Pass', fail: 'Fail', warn: 'Warn', error: 'Error', skip: 'Skip' };

/**
 * `apply --table`: Kyverno's results table, a row per rule response of every policy response in order
 * (classic policies, then the CEL ones, whose RULE cell stays empty as in Kyverno). REASON is empty, as
 * Kyverno leaves it for apply; `--detailed-results` adds the MESSAGE column. A failure reads `Warn` when
 * the policy is not scored, or with `--audit-warn` when its failure action is Audit.
 */
export function renderApplyTable(
  responses: readonly EvaluatedResponse[],
  celResponses: readonly CelEvaluatedResponse[],
  detailed: boolean,
  auditWarn: boolean,
): string {
  const rows: string[][] = [];
  const add = (policy: string, rule: string, resource: string, result: string, message: string) => {
    const row = [String(rows.length + 1), policy, rule, resource, result, ''];
    if (detailed) row.push(message);
    rows.push(row);
  };
  for (const { policy, response, resource } of responses) {
    for (const rule of response.rules) {
      let result = RESULT[rule.status];
      if (rule.status === 'fail') {
        const audit = (rule.failureAction ?? response.validationFailureAction) === 'Audit';
        if (!isScored(policy) || (auditWarn && audit)) result = RESULT.warn;
      }
      add(policyCell(policy), rule.name, resourceCell(resource), result, rule.message);
    }
  }
  for (const { policy, response, resource } of celResponses) {
    for (const rule of response.rules) {
      const scored = isScored(policy as unknown as Pick<Policy, 'metadata'>);
      const result = rule.status === 'fail' && !scored ? RESULT.warn : RESULT[rule.status];
      add(policyCell(policy), '', resourceCell(resource), result, rule.message);
    }
  }
  return renderTable(detailed ? [...HEADERS, 'MESSAGE'] : HEADERS, rows, new Set([0])) + '\n';
}

function policyCell(policy: { metadata: { name?: string; namespace?: string } }): string {
  const { name = '', namespace } = policy.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

function resourceCell(resource: KubeObject): string {
  const { name = '', namespace } = resource.metadata;
  return namespace ? `${namespace}/${resource.kind}/${name}` : `${resource.kind}/${name}`;
}
