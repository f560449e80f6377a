import type { PodSecurityStandardExclude } from '../policy';
import { CONTAINER_LEVEL_CONTROLS, POD_LEVEL_CONTROLS, RESTRICTED_CONTROLS } from '../pss';
import type { RuleCheck } from './check-context';
import type { Findings, Path } from './findings';

/** Controls Kyverno lets a baseline rule exclude although they belong to the restricted profile. */
const BASELINE_EXCLUDABLE = ['Seccomp', 'Capabilities'];

/**
 * Kyverno's ValidatePSaControlNames for a `validate.podSecurity` rule. Its errors name the
 * exclusion as `spec.rules[i].podSecurity.exclude[j]` (without `validate`), as Kyverno's do.
 */
export function checkPodSecurityRule(c: RuleCheck): void {
  const podSecurity = c.rule.validate?.podSecurity;
  if (!podSecurity) return;
  const at: Path = [...c.path, 'podSecurity', 'exclude'];
  (podSecurity.exclude ?? []).forEach((exclude, i) => {
    checkExclude(exclude, [...at, i], c.findings);
    if (podSecurity.level !== 'baseline' || BASELINE_EXCLUDABLE.includes(exclude.controlName)) return;
    if (RESTRICTED_CONTROLS.includes(exclude.controlName)) {
      c.findings.error([...at, i, 'controlName'], 'Invalid control name defined at the given level');
    }
  });
}

/**
 * One exclusion (of a rule or a PolicyException): container-level controls need `images`, pod-level
 * controls may not have them, and `restrictedField` and `values` come together.
 */
export function checkExclude(exclude: PodSecurityStandardExclude, path: Path, findings: Findings): void {
  const images = exclude.images?.length ?? 0;
  if (CONTAINER_LEVEL_CONTROLS.includes(exclude.controlName) && images === 0) {
    findings.error([...path, 'controlName'], 'exclude.images must be specified for the container level control');
  } else if (POD_LEVEL_CONTROLS.includes(exclude.controlName) && images !== 0) {
    findings.error([...path, 'controlName'], 'exclude.images must not be specified for the pod level control');
  }
  const hasField = (exclude.restrictedField ?? '') !== '';
  const hasValues = (exclude.values?.length ?? 0) > 0;
  if (hasField && !hasValues) findings.error([...path, 'values'], 'values is required');
  if (!hasField && hasValues) findings.error([...path, 'restrictedField'], 'restrictedField is required');
}
