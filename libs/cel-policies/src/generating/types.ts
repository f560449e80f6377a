import type { JsonObject, KubeObject } from '@edict/foundation';
import type { RuleResponse } from '@edict/engine';
import type { MatchCondition, MatchResources, Variable } from '../api/types';
import type { CelPolicyContext } from '../evaluate/input';

// The GeneratingPolicy API as Kyverno serves it (api/policies.kyverno.io/v1, generating_policy.go).
// Objects arrive as parsed YAML/JSON: every field is optional here and checked by generatingPolicyErrors.

export type GeneratingPolicyKind = 'GeneratingPolicy' | 'NamespacedGeneratingPolicy';

/** A YAML template of the objects to generate (`interpolate: cel` evaluates its `(( ... ))` placeholders). */
export interface GenerationTemplate {
  interpolate?: string;
  value?: string;
}

/** One `spec.generate[]` entry: a CEL expression calling `generator.Apply`, or a template. */
export interface Generation {
  expression?: string;
  template?: GenerationTemplate;
}

export interface Enabled {
  enabled?: boolean;
}

export interface GeneratingPolicyEvaluation {
  admission?: Enabled;
  generateExisting?: Enabled;
  synchronize?: Enabled;
  orphanDownstreamOnPolicyDelete?: Enabled;
}

export interface GeneratingPolicySpec {
  matchConstraints?: MatchResources;
  matchConditions?: MatchCondition[];
  variables?: Variable[];
  evaluation?: GeneratingPolicyEvaluation;
  webhookConfiguration?: { timeoutSeconds?: number };
  generate?: Generation[];
}

/** A GeneratingPolicy compiled once: what the webhook, the background controller and the CLI read. */
export interface CompiledGeneratingPolicy {
  readonly policy: KubeObject;
  readonly kind: GeneratingPolicyKind;
  readonly name: string;
  /** NamespacedGeneratingPolicy: its namespace; it is triggered there and generates there only. */
  readonly namespace?: string;
  readonly matchConstraints: MatchResources;
  readonly matchConditions: readonly MatchCondition[];
  /** evaluation.admission.enabled (default true): whether admission requests trigger it. */
  readonly admission: boolean;
  /** evaluation.generateExisting.enabled (default false): run for triggers existing when the policy is created. */
  readonly generateExisting: boolean;
  /** evaluation.synchronize.enabled (default false): downstream kept in sync, deleted with trigger and policy. */
  readonly synchronize: boolean;
  /** evaluation.orphanDownstreamOnPolicyDelete.enabled (default false): keep downstream when the policy goes. */
  readonly orphanDownstreamOnPolicyDelete: boolean;
  readonly timeoutSeconds?: number;
}

/** Bounds of one evaluation on one trigger. */
export interface GeneratingPolicyLimits {
  /** Objects `generator.Apply` may ask for per trigger (a List's items count one each). */
  readonly maxObjects: number;
  /** Bytes (JSON) of one generated object. */
  readonly maxObjectBytes: number;
}

export const GPOL_LIMITS: GeneratingPolicyLimits = Object.freeze({
  maxObjects: 100,
  maxObjectBytes: 1024 * 1024,
});

/**
 * What the evaluation is for. `controller` (default): the downstream objects as the background
 * controller creates them, with Kyverno's labels naming the policy and the trigger. `cli`: as
 * Kyverno's CLI records them (no labels; uid, annotations, resourceVersion, creationTimestamp and
 * managedFields dropped).
 */
export type GenerationMode = 'controller' | 'cli';

export interface GeneratingPolicyContext extends CelPolicyContext {
  mode?: GenerationMode;
  limits?: Partial<GeneratingPolicyLimits>;
  /**
   * Whether a kind is namespaced (discovery); undefined when unknown (treated as namespaced, as
   * Kyverno does). A cluster-scoped object is generated without a namespace, and refused to a
   * NamespacedGeneratingPolicy.
   */
  isNamespaced?(apiVersion: string, kind: string): boolean | undefined;
}

/**
 * A GeneratingPolicy's answer for one trigger, as Kyverno's gpol engine responds: `pass` with the
 * downstream objects (none when a match condition is false), `skip` when exceptions matched,
 * `error` when matching or an expression failed (then no object is generated).
 */
export interface GeneratingPolicyResult {
  readonly policy: { readonly name: string; readonly kind: GeneratingPolicyKind; readonly namespace?: string };
  readonly trigger: JsonObject;
  readonly status: 'pass' | 'skip' | 'error';
  readonly message: string;
  /** The objects to create or update, in the order the expressions asked for them. */
  readonly downstream: readonly KubeObject[];
  /** The matched exceptions (`namespace/name`). */
  readonly exceptions?: readonly string[];
  /** The same as one Generation rule response (named after the policy), for reports and the CLI. */
  readonly rule: RuleResponse;
}
