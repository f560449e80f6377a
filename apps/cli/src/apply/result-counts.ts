import { isScored, type Rule, type RuleResponse } from '@edict/engine';
import type { CelEvaluatedResponse, EvaluatedResponse } from '@edict/kyverno-test';

export interface ResultCounts {
  pass: number;
  fail: number;
  warn: number;
  error: number;
  skip: number;
}

export const emptyCounts = (): ResultCounts => ({ pass: 0, fail: 0, warn: 0, error: 0, skip: 0 });

/** The rules Kyverno counts for a policy: its rules with the autogen copies the compiled policy added. */
export function countedRules(record: EvaluatedResponse): readonly Rule[] {
  return record.compiled.policy.spec.rules ?? [];
}

/**
 * The rule responses apply counts for one policy response, as Kyverno's CLI does: each rule of the
 * policy (autogen copies included) of the type the stage counts that has a response; a rule with no
 * response (it did not match) is not counted.
 */
function countedResponses(record: EvaluatedResponse): RuleResponse[] {
  const rules = countedRules(record);
  const byName = new Map<string, RuleResponse>(record.response.rules.map((rule) => [rule.name, rule]));
  const responses = (counted: readonly Rule[]) =>
    counted.map((rule) => byName.get(rule.name)).filter((response) => response !== undefined);
  if (record.stage === 'validate') return responses(rules.filter((r) => r.validate || r.verifyImages));
  if (isImageVerification(record)) return responses(rules.filter((r) => r.verifyImages));
  if (record.stage === 'mutate') return rules.some((r) => r.mutate) ? responses(rules) : [];
  return responses(rules);
}

/**
 * Adds one policy response to apply's counters the way Kyverno's CLI does. Failures of unscored
 * policies, and of Audit policies under --audit-warn, count as warnings; mutate warnings are not
 * counted; generate counts anything but a pass as a failure.
 */
export function addResponse(counts: ResultCounts, record: EvaluatedResponse, auditWarn: boolean): void {
  const audit = record.response.validationFailureAction === 'Audit';
  for (const response of countedResponses(record)) {
    if (record.stage === 'validate' || isImageVerification(record)) {
      if (response.status === 'fail') counts[!isScored(record.policy) || (auditWarn && audit) ? 'warn' : 'fail']++;
      else counts[response.status]++;
    } else if (record.stage === 'mutate') {
      if (response.status !== 'warn') counts[response.status]++;
    } else counts[response.status === 'pass' ? 'pass' : 'fail']++;
  }
}

/**
 * Adds a CEL policy's response as Kyverno's CLI does: every rule response of a ValidatingPolicy
 * counts (skips too), a ValidatingAdmissionPolicy's passes, failures and errors only.
 */
export function addCelResponse(counts: ResultCounts, record: CelEvaluatedResponse): void {
  for (const rule of record.response.rules) {
    if (
      record.kind === 'ValidatingAdmissionPolicy' &&
      rule.status !== 'pass' &&
      rule.status !== 'fail' &&
      rule.status !== 'error'
    )
      continue;
    counts[rule.status]++;
  }
}

/** The rule responses of a policy response that `addResponse` counts as errors, for their reasons. */
export function countedErrors(record: EvaluatedResponse): RuleResponse[] {
  if (record.stage === 'generate') return []; // counted as failures
  return countedResponses(record).filter((response) => response.status === 'error');
}

/** Kyverno's apply exit code: 1 on failures or errors, the warn exit code when only warnings, else 0. */
export function applyExitCode(counts: ResultCounts, warnExitCode: number): number {
  if (counts.fail > 0 || counts.error > 0) return 1;
  if (counts.warn > 0 && warnExitCode !== 0) return warnExitCode;
  return 0;
}

export function summaryLine(counts: ResultCounts): string {
  return `pass: ${counts.pass}, fail: ${counts.fail}, warn: ${counts.warn}, error: ${counts.error}, skip: ${counts.skip} `;
}

/**
 * A verifyImages response (run with the mutations, as it patches digests and the annotation):
 * Kyverno's CLI counts and prints it as a validation.
 */
export function isImageVerification(record: EvaluatedResponse): boolean {
  return record.stage === 'mutate' && record.response.rules.some((rule) => rule.type === 'ImageVerify');
}
