/**
 * Bounds of CEL in validate.cel rules. Kubernetes bounds CEL by an estimated and a runtime cost;
 * Edict counts evaluation steps (one per expression node evaluated, comprehension bodies once per
 * element) and caps the size of every value an expression produces.
 */
export interface CelLimits {
  readonly maxExpressionLength: number;
  readonly maxSteps: number;
  readonly maxStringLength: number;
  readonly maxListLength: number;
  readonly maxAuthorizerChecks: number;
  readonly maxMessageLength: number;
}

export const CEL_LIMITS: CelLimits = Object.freeze({
  /** Characters in one expression. */
  maxExpressionLength: 10_000,
  /** Evaluation steps for one rule on one request (its preconditions, variables, expressions and messages). */
  maxSteps: 1_000_000,
  /** Characters of any string an expression reads or builds (Kubernetes' largest request is about 3 MiB). */
  maxStringLength: 3 * 1024 * 1024,
  /** Elements of any list or bytes of any bytes value an expression reads or builds. */
  maxListLength: 1_000_000,
  /** Distinct authorizer checks (SubjectAccessReviews) for one rule on one request. */
  maxAuthorizerChecks: 32,
  /** A messageExpression result longer than this is ignored, as Kubernetes does (5 KiB). */
  maxMessageLength: 5 * 1024,
});
