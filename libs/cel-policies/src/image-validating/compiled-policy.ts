import type { JsonObject, KubeObject } from '@edict/foundation';
import type { ValidationAction } from '@edict/engine';
import type { AutogenConfig, MatchCondition, MatchResources } from '../api/types';
import type { ImageCredentials, ImageValidatingPolicyKind } from './types';

/** An ImageValidatingPolicy compiled once: what the webhooks, the scanner and the CLI need to know and run. */
export interface CompiledImageValidatingPolicy {
  readonly policy: KubeObject;
  readonly kind: ImageValidatingPolicyKind;
  readonly name: string;
  /** NamespacedImageValidatingPolicy: its namespace; it only ever applies to objects there. */
  readonly namespace?: string;
  readonly validationActions: readonly ValidationAction[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  /** evaluation.admission.enabled (default true). */
  readonly admission: boolean;
  /** evaluation.background.enabled (default true). */
  readonly background: boolean;
  readonly mode: 'Kubernetes' | 'JSON';
  readonly timeoutSeconds?: number;
  /** validationConfigurations.mutateDigest (default true): tags are replaced by digests at admission. */
  readonly mutateDigest: boolean;
  /** validationConfigurations.verifyDigest (default true): matched images must carry a digest. */
  readonly verifyDigest: boolean;
  /** validationConfigurations.required (default true): matched images must have been verified. */
  readonly required: boolean;
  /** spec.credentials, as written. */
  readonly credentials?: ImageCredentials;
  /** matchConstraints with the autogen targets' resources added, for webhook rules. */
  readonly matchConstraints: MatchResources;
  readonly matchConditions: readonly MatchCondition[];
  /** The pod-controller configs autogen made, in Kyverno's order. */
  readonly autogen: readonly AutogenConfig[];
  /** status.autogen as Kyverno writes it: `{ configs: { <name>: { targets, spec } } }` ({} when none). */
  readonly autogenStatus: JsonObject;
}
