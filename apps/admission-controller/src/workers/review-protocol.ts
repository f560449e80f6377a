/**
 * The messages between the main thread and a review worker. The main thread keeps the worker's
 * policies and admission config current (`policies`, `config`, in order before any review that
 * needs them: a port delivers in order) and sends each review with what it read for it. The worker
 * says `ready` once loaded, answers each decision first, then, for an admitted review with audits,
 * their results. Either side posts its messages as arrays, those of one event-loop turn together
 * (MessageBatch); the worker's go as JSON text (`encodeFromWorker`).
 */
import type {
  AdmissionConfig,
  AdmissionDecision,
  AfterAdmission,
  FailurePolicy,
  MutationOutcome,
  RequestRoles,
  ValidationOutcome,
} from '@edict/admission';
import type { GroupVersionKind, RecordedSpan } from '@edict/foundation';
import type { PolicyResult } from '../metrics/admission-metrics';
import type { ReviewKind } from '../webhooks/review-decision';
import type { PolicySync } from './policy-sync';

export interface ReviewJob {
  readonly type: 'review';
  readonly id: number;
  readonly kind: ReviewKind;
  readonly failurePolicy: FailurePolicy;
  /** The AdmissionReview's JSON text, its request already checked by the main thread. */
  readonly review: string;
  /** The main snapshot's generation the review was taken against; the worker has at least this one. */
  readonly generation: number;
  /**
   * The review's deadline on the clock both threads share, `performance.timeOrigin + performance.now()`
   * (each thread's performance.now() starts at its own origin): a review that waited in the
   * worker's queue has that much less time, not a fresh window.
   */
  readonly deadlineEpochMs: number;
  readonly namespaceLabels?: Record<string, string>;
  readonly roles?: RequestRoles;
  readonly backgroundUsername?: string;
  readonly admissionReports?: boolean;
  readonly topLevelKind?: GroupVersionKind;
  /** Tracing is on: the worker records the engine's policy and rule spans and sends them back. */
  readonly trace?: boolean;
}

export type ToWorker =
  | { readonly type: 'policies'; readonly sync: PolicySync }
  | { readonly type: 'config'; readonly config: AdmissionConfig }
  | ReviewJob;

/** What the policy metrics need of one policy evaluation. */
export interface PolicyEvaluation {
  readonly response: PolicyResult;
  readonly background: boolean;
  readonly seconds: number;
}

/** A ReviewOutcome as it crosses threads: policies by key, and whether audit results will follow. */
export interface WireOutcome {
  readonly decision: AdmissionDecision;
  readonly policies: readonly string[];
  readonly validation?: Omit<ValidationOutcome, 'after'> & { readonly hasAfter: boolean };
  readonly mutation?: MutationOutcome;
}

/**
 * `inProcess`: a rule read context the worker does not have (ConfigMaps, API calls, global
 * context, image data, cluster resources, access reviews); the main thread evaluates it instead.
 */
export type FromWorker =
  | { readonly type: 'ready' }
  | {
      readonly type: 'decided';
      readonly id: number;
      readonly outcome: WireOutcome;
      readonly evaluations: PolicyEvaluation[];
      /** The policy and rule spans (traced reviews), replayed under the review's span. */
      readonly spans?: RecordedSpan[];
    }
  | { readonly type: 'decided'; readonly id: number; readonly inProcess: true }
  | { readonly type: 'failed'; readonly id: number; readonly message: string; readonly deadline: boolean }
  | {
      readonly type: 'after';
      readonly id: number;
      readonly after: AfterAdmission;
      readonly evaluations: PolicyEvaluation[];
      readonly spans?: RecordedSpan[];
    }
  | { readonly type: 'after'; readonly id: number; readonly inProcess: true }
  | { readonly type: 'after'; readonly id: number; readonly error: string };

/**
 * The worker's messages as JSON text. They carry policy responses and report rows, plain JSON, and
 * the main thread, the busier one, reads text with JSON.parse in about half the time it takes to
 * read a structured clone of the same objects.
 */
export function encodeFromWorker(batch: readonly FromWorker[]): string {
  return JSON.stringify(batch);
}

export function decodeFromWorker(encoded: string): FromWorker[] {
  return JSON.parse(encoded) as FromWorker[];
}
