import type { Diagnostic, Policy } from '../policy';
import { unsupportedValidation } from '../validate/unsupported-validation';
import { hasVerifyImages } from '../validate/unsupported-verify-images';
import { Findings } from './findings';

/**
 * Rules Edict cannot run yet (verifyImages, validate.cel, validate.assert), as errors naming the rule
 * and field. Kyverno accepts them; the admission controller refuses them at install time so that a
 * policy is never published that would not be enforced as written. (Such policies already in a
 * cluster still fail closed: their rules answer `error`.) The CLI does not apply this check.
 */
export function checkRulesEdictRuns(policy: Policy, file = ''): Diagnostic[] {
  const name = policy.metadata?.name;
  const findings = new Findings({ file, object: `${policy.kind}${name ? `/${name}` : ''}` });
  (policy.spec?.rules ?? []).forEach((rule, index) => {
    const at = ['spec', 'rules', index];
    const ruleName = rule?.name ? `rule ${rule.name}` : `rule ${index}`;
    if (rule && hasVerifyImages(rule)) {
      findings.error(
        [...at, 'verifyImages'],
        `${ruleName}: Edict does not run verifyImages rules yet (image signatures and attestations are not verified); the policy is refused rather than published unenforced`,
      );
    }
    const unsupported = rule?.validate ? unsupportedValidation(rule.validate) : undefined;
    if (unsupported) {
      findings.error(
        [...at, 'validate', unsupported.field],
        `${ruleName}: ${unsupported.reason} yet; the policy is refused rather than published unenforced`,
      );
    }
  });
  return findings.diagnostics;
}
