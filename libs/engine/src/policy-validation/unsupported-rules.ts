import { compileCel } from '@edict/cel';
import type { Policy } from '../policy';
import { type Diagnostic, isObject } from '@edict/foundation';
import { celRuleProblems } from '../validate/cel/compile-rule';
import { unsupportedValidation } from '../validate/unsupported-validation';
import { unsupportedImageVerification } from '../verify-images/policy-checks';
import { Findings } from './findings';

/**
 * Rules Edict cannot run (verifyImages options it lacks, such as KMS keys, and validate.assert, not yet; CEL expressions that do not
 * compile, in rules and in the webhook's matchConditions), as errors naming the rule and field. Kyverno accepts them; the admission controller
 * refuses them at install time so that a policy is never published that would not be enforced as
 * written. (Such policies already in a cluster still fail closed: their rules answer `error`.) The
 * CLI does not apply this check.
 */
export function checkRulesEdictRuns(policy: Policy, file = ''): Diagnostic[] {
  const name = policy.metadata?.name;
  const findings = new Findings({ file, object: `${policy.kind}${name ? `/${name}` : ''}` });
  checkMatchConditions(policy, findings);
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

/** The API server would refuse the webhook configuration: kube compiles matchConditions with `authorizer`. */
function checkMatchConditions(policy: Policy, findings: Findings): void {
  const conditions = policy.spec?.webhookConfiguration?.['matchConditions'];
  if (!Array.isArray(conditions)) return;
  conditions.forEach((condition, index) => {
    const expression = isObject(condition) ? condition['expression'] : undefined;
    const at = ['spec', 'webhookConfiguration', 'matchConditions', index, 'expression'];
    try {
      compileCel(typeof expression === 'string' ? expression : '', { params: false, authorizer: true }, 'bool');
    } catch (error) {
      findings.error(at, `matchConditions expression does not compile: ${(error as Error).message}`);
    }
  });
}
