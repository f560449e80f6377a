import type { JsonObject, KubeObject } from '@edict/foundation';
import type { ValidationAction } from '@edict/engine';
import type { AutogenConfig, MatchCondition, MatchResources, ValidatingPolicyKind } from '../api/types';

/** A ValidatingPolicy compiled once: what the webhook, the scanner and the CLI need to know and run. */
export interface CompiledValidatingPolicy {
  readonly policy: KubeObject;
  readonly kind: ValidatingPolicyKind;
  readonly name: string;
  /** NamespacedValidatingPolicy: its namespace; it only ever applies to objects there. */
  readonly namespace?: string;
  readonly validationActions: readonly ValidationAction[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  /** evaluation.admission.enabled (default true). */
  readonly admission: boolean;
  /** evaluation.background.enabled (default true). */
  readonly background: boolean;
  readonly mode: 'Kubernetes' | 'JSON';
  readonly timeoutSeconds?: number;
  /** matchConstraints with the autogen targets' resources added, for webhook rules. */
  readonly matchConstraints: MatchResources;
  readonly matchConditions: readonly MatchCondition[];
  /** The pod-controller configs autogen made, in Kyverno's order. */
  readonly autogen: readonly AutogenConfig[];
  /** status.autogen as Kyverno writes it: `{ configs: { <name>: { targets, spec } } }` ({} when none). */
  readonly autogenStatus: JsonObject;
}
