import type { KubeObject } from '@edict/foundation';
import type { RuleResponse } from '../core/types';
import type { Policy } from '../policy/types';

/** The policy fields a generate rule reads: its identity (for labels) and spec-level defaults. */
export type GeneratingPolicy = Pick<Policy, 'kind' | 'metadata'> & {
  spec?: Pick<Policy['spec'], 'generateExisting' | 'useServerSideApply'>;
};

/** Where a generated object is to be created: apiVersion/kind plus its namespace (empty when cluster-scoped) and name. */
export interface ResourceRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** How one generated object was produced. */
export type GeneratedFrom = { type: 'data' } | { type: 'clone'; source: ResourceRef };

/** A target Kyverno would have generated but could not, and why (Kyverno logs these and moves on). */
export interface NotGenerated {
  target: ResourceRef;
  reason: string;
  /** A failure (source not found, bad data), as opposed to a target skipped on purpose. */
  failed: boolean;
}

/**
 * What the background controller needs besides the objects themselves. Kyverno keeps these on the rule
 * (not the objects), so they travel with the response.
 */
export interface GenerationDetails {
  /** `generate.synchronize`: keep downstream objects in sync with the rule/clone source, and delete them with the trigger. */
  synchronize: boolean;
  /** `generate.orphanDownstreamOnPolicyDelete`: keep downstream objects when the policy or rule is deleted. */
  orphanDownstreamOnPolicyDelete: boolean;
  /** `generate.generateExisting`, falling back to the deprecated `spec.generateExisting`: also run for existing triggers. */
  generateExisting: boolean;
  /** `spec.useServerSideApply`: apply the objects with server-side apply instead of create/update. */
  useServerSideApply: boolean;
  /** One entry per `generatedResources` item, same order. */
  sources: GeneratedFrom[];
  /** Targets skipped on purpose or after a failure that Kyverno does not turn into a rule error. */
  notGenerated: NotGenerated[];
  /**
   * Set when Kyverno's background controller would fail this rule (variable substitution, foreach list
   * or context errors). The rule result stays `pass`, as Kyverno's admission response and CLI report it;
   * objects computed before/besides the failure are still listed.
   */
  error?: string;
}

/** A `Generation` rule response carrying the generation details. */
export interface GenerationRuleResponse extends RuleResponse {
  type: 'Generation';
  generatedResources?: KubeObject[];
  generation?: GenerationDetails;
}
