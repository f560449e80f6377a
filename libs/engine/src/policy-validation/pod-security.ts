import type { PodSecurityStandardExclude } from '../policy';
import { CONTAINER_LEVEL_CONTROLS, POD_LEVEL_CONTROLS, RESTRICTED_CONTROLS } from '../pss';
import type { RuleCheck } from './check-context';
import type { Findings, Path } from './findings';

/** Controls Kyverno lets a baseline rule exclude although they belong to the restricted profile. */
const BASELINE_EXCLUDABLE = ['Seccomp', 'Capabilities'];

/** Kyverno's ValidatePSaControlNames for a `validate.podSecurity` rule. */
export function checkPodSecurityRule(c: RuleCheck): void {
  const podSecurity = c.rule.validate?.podSecurity;
  if (!podSecurity) return;
  const at: Path = [...c.path, 'validate', 'podSecurity', 'exclude'];
  (podSecurity.exclude ?? []).forEach((exclude, i) => {
    checkExcludeImages(exclude, [...at, i], c.findings);
    if (podSecurity.level !== 'baseline' || BASELINE_EXCLUDABLE.includes(exclude.controlName)) return;
    if (RESTRICTED_CONTROLS.includes(exclude.controlName)) {
      c.findings.error([...at, i, 'controlName'], 'Invalid control name defined at the given level');
    }
  });
}

/** Container-level controls need `images`; pod-level controls may not have them. */
export function checkExcludeImages(exclude: PodSecurityStandardExclude, path: Path, findings: Findings): void {
  const images = exclude.images?.length ?? 0;
  if (CONTAINER_LEVEL_CONTROLS.includes(exclude.controlName) && images === 0) {
    findings.error([...path, 'controlName'], 'exclude.images must be specified for the container level control');
  } else if (POD_LEVEL_CONTROLS.includes(exclude.controlName) && images !== 0) {
    findings.error([...path, 'controlName'], 'exclude.images must not be specified for the pod level control');
  }
}
