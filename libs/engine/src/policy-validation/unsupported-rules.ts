import type { Policy } from '../policy';
import type { Diagnostic } from '@edict/foundation';
import { celRuleProblems } from '../validate/cel/compile-rule';
import { unsupportedValidation } from '../validate/unsupported-validation';
import { unsupportedImageVerification } from '../verify-images/policy-checks';
import { Findings } from './findings';

/**
 * Rules Edict cannot run (verifyImages options it lacks, such as KMS keys, and validate.assert, not yet; CEL expressions of rules that do not
 * compile), as errors naming the rule and field. Kyverno accepts them; the admission controller
 * refuses them at install time so that a policy is never published that would not be enforced as
 * written. (Such policies already in a cluster still fail closed: their rules answer `error`.) The
 * CLI does not apply this check.
 */
export function checkRulesEdictRuns(policy: Policy, file = ''): Diagnostic[] {
  const name = policy.metadata?.name;
  const findings = new Findings({ file, object: `${policy.kind}${name ? `/${name}` : ''}` });
  (policy.spec?.rules ?? []).forEach((rule, index) => {
    const at = ['spec', 'rules', index];
    const ruleName = rule?.name ? `rule ${rule.name}` : `rule ${index}`;
    for (const problem of rule ? unsupportedImageVerification(rule) : []) {
      findings.error(
        [...at, ...problem.path],
        `${ruleName}: ${problem.message}; the policy is refused rather than published unenforced`,
      );
    }
    const unsupported = rule?.validate ? unsupportedValidation(rule.validate) : undefined;
    if (unsupported) {
      findings.error(
        [...at, 'validate', unsupported.field],
        `${ruleName}: ${unsupported.reason} yet; the policy is refused rather than published unenforced`,
      );
    }
    if (rule?.validate?.cel || rule?.celPreconditions) {
      for (const problem of celRuleProblems(rule)) {
        findings.error([...at, ...problem.path], `${ruleName}: CEL expression does not compile: ${problem.message}`);
      }
    }
  });
  return findings.diagnostics;
}
