import type { RuleStatus } from '@edict/engine';
import { displayResource } from './resource-match';
import type { ExpectedResult } from './types';

export type Verdict = 'strict' | 'compatible';

/** One verified expectation: a results[] entry applied to one resource (strict) or one rule response (compatible). */
export interface Check {
  /** Index of the results[] entry it comes from. */
  entry: number;
  policy: string;
  rule: string;
  /** As Kyverno prints it: `kind/name` or `namespace/kind/name`. */
  resource: string;
  expected: RuleStatus;
  /** The result(s) found, comma-separated; empty when there was none. */
  got: string;
  passed: boolean;
  /** Short reason for the table: Ok, Want x got y, Not found, Excluded, Resource diff, ... */
  reason: string;
  /** Rule message(s), or what went wrong. */
  message: string;
}

/** What a check is about, before it is verified: a results[] entry and one resource name of it. */
export type CheckSubject = Omit<Check, 'got' | 'passed' | 'reason' | 'message'>;

export function checkSubject(entry: ExpectedResult, name: string): CheckSubject {
  return {
    entry: entry.index,
    policy: entry.policy,
    rule: entry.rule,
    resource: displayResource(entry.kind, name, entry.namespace),
    expected: entry.result,
  };
}

export interface TestOutcome {
  /** Test file path as given (relative to the working directory when possible). */
  file: string;
  name: string;
  /** Load or engine errors: the test fails whatever its checks say. */
  errors: string[];
  checks: Check[];
  passed: boolean;
}

export interface VerdictSummary {
  tests: { passed: number; failed: number };
  checks: { passed: number; failed: number };
}

export function summarize(outcomes: readonly TestOutcome[]): VerdictSummary {
  const summary: VerdictSummary = { tests: { passed: 0, failed: 0 }, checks: { passed: 0, failed: 0 } };
  for (const outcome of outcomes) {
    summary.tests[outcome.passed ? 'passed' : 'failed']++;
    for (const check of outcome.checks) summary.checks[check.passed ? 'passed' : 'failed']++;
  }
  return summary;
}
