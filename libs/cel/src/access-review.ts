/** The access reviews CEL's `authorizer` asks for, as plain data (SubjectAccessReview's spec and status). */
/** Who an access review asks about (a SubjectAccessReview's user fields). */
export interface AccessReviewSubject {
  user: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** The resource a review asks about (a SubjectAccessReview's resourceAttributes without the verb). */
export interface ResourceAttributes {
  group: string;
  version?: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** One authorization question, as the spec of a SubjectAccessReview asks it. */
export interface AccessReviewRequest extends AccessReviewSubject {
  resourceAttributes?: ResourceAttributes & { verb: string };
  nonResourceAttributes?: { path: string; verb: string };
}

/** A SubjectAccessReview's status. */
export interface AccessReviewDecision {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}
