/** The names and labels Kyverno gives the admission policies it generates. */
import { LABEL_MANAGED_BY, MANAGED_BY_KYVERNO } from '@edict/engine';

/** A policy labelled so is left out of reports; its generated policies carry the label too. */
export const LABEL_EXCLUDE_REPORTING = 'reports.kyverno.io/disabled';

export const CLUSTER_POLICY_PREFIX = 'cpol-';
export const VALIDATING_POLICY_PREFIX = 'vpol-';
export const MUTATING_POLICY_PREFIX = 'mpol-';

/** `cpol-<name>` for a ClusterPolicy, `vpol-<name>` for a ValidatingPolicy, `mpol-<name>` for a MutatingPolicy. */
export function generatedPolicyName(
  kind: 'ClusterPolicy' | 'ValidatingPolicy' | 'MutatingPolicy',
  name: string,
): string {
  const prefix =
    kind === 'ClusterPolicy'
      ? CLUSTER_POLICY_PREFIX
      : kind === 'ValidatingPolicy'
        ? VALIDATING_POLICY_PREFIX
        : MUTATING_POLICY_PREFIX;
  return `${prefix}${name}`;
}

/** The binding of a generated policy: `<policy name>-binding`. */
export function generatedBindingName(policyName: string): string {
  return `${policyName}-binding`;
}

/** Kyverno's managed-by label, plus the reporting exclusion when the source policy carries it. */
export function generatedLabels(
  source: Record<string, string> | undefined,
  withReporting: boolean,
): Record<string, string> {
  const labels: Record<string, string> = { [LABEL_MANAGED_BY]: MANAGED_BY_KYVERNO };
  if (withReporting && source && Object.prototype.hasOwnProperty.call(source, LABEL_EXCLUDE_REPORTING)) {
    labels[LABEL_EXCLUDE_REPORTING] = 'true';
  }
  return labels;
}
