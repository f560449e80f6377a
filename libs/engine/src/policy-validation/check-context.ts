import type { Policy, Rule } from '../policy';
import type { Findings, Path } from './findings';

/** What every policy check needs to know about the policy under validation. */
export interface PolicyCheck {
  readonly policy: Policy;
  /** A namespaced `Policy` (as opposed to a `ClusterPolicy`). */
  readonly namespaced: boolean;
  /** The namespace of a namespaced policy ('' for a ClusterPolicy). */
  readonly namespace: string;
  /** Background processing (spec.background, default true) as Kyverno applies it to variables. */
  readonly background: boolean;
  readonly clusterKinds: ReadonlySet<string>;
  /** Validating as Kyverno's webhook does, against a cluster's API (see PolicyValidationOptions). */
  readonly againstCluster: boolean;
  readonly findings: Findings;
}

export interface RuleCheck extends PolicyCheck {
  readonly rule: Rule;
  readonly index: number;
  /** `['spec', 'rules', index]`. */
  readonly path: Path;
}
