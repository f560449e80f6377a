import type { JsonPatchOperation } from '@edict/engine';

/**
 * What the handler decided for one review, before it is shaped into an AdmissionResponse.
 * Denials carry Kyverno's message; `code`/`reason` are only set where Kyverno would set them
 * (it does not for policy denials: the API server then reports 400 with the message).
 */
export interface AdmissionDecision {
  allowed: boolean;
  message?: string;
  code?: number;
  reason?: string;
  warnings?: string[];
  /** Mutation: the operations to apply to the submitted object (empty or absent: no change). */
  patch?: JsonPatchOperation[];
  auditAnnotations?: Record<string, string>;
}

export type { FailurePolicy } from '@edict/engine';

export const allow = (warnings?: string[]): AdmissionDecision =>
  warnings && warnings.length > 0 ? { allowed: true, warnings } : { allowed: true };

export const deny = (message: string, warnings?: string[]): AdmissionDecision =>
  warnings && warnings.length > 0 ? { allowed: false, message, warnings } : { allowed: false, message };
