import type { Operation, PolicyResponse } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';

// The answers of Kyverno's CEL policies and Kubernetes' admission policies in a CLI test, apart
// from the evaluation so that each kind's evaluator (evaluate-mpol, evaluate-map...) can use them.

/** The policy kinds whose responses the test runner takes from the CEL engines. */
export type CelPolicyKind =
  | 'ValidatingPolicy'
  | 'NamespacedValidatingPolicy'
  | 'ValidatingAdmissionPolicy'
  | 'ImageValidatingPolicy'
  | 'NamespacedImageValidatingPolicy'
  | 'MutatingPolicy'
  | 'NamespacedMutatingPolicy'
  | 'MutatingAdmissionPolicy'
  | 'GeneratingPolicy'
  | 'DeletingPolicy'
  | 'NamespacedDeletingPolicy'
  | 'NamespacedGeneratingPolicy';

/** A CEL policy's response: the classic engine's shape, for any of these kinds. */
export type CelPolicyResponse = Omit<PolicyResponse, 'policy'> & {
  policy: { name: string; namespace?: string; kind: CelPolicyKind };
};

/** One CEL policy's answer for one trigger: a resource, or a JSON payload. */
export interface CelEvaluatedResponse {
  kind: CelPolicyKind;
  /** The policy document as the test gave it. */
  policy: KubeObject;
  /** The trigger resource, or the object a JSON payload stands for. */
  resource: KubeObject;
  /** Set when the trigger is a JSON payload: its file. */
  payloadFile?: string;
  operationOverride?: Operation;
  response: CelPolicyResponse;
  /** Mutating kinds: 'mutate' (the verdicts compare patchedResources); validate otherwise. */
  stage?: 'mutate';
  /** Mutating kinds: the resource after the policy. */
  patchedResource?: KubeObject;
}

export interface CelEvaluation {
  responses: CelEvaluatedResponse[];
  errors: string[];
}
