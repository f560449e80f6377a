/**
 * How a webhook that validates Kyverno's own objects (policies, exceptions, cleanup policies)
 * answers: a body that is no AdmissionReview gets 400; a deletion is never refused; what the kind's
 * CRD refuses (an enum value, a wrong type, a missing required or an undeclared field) is refused
 * first, in the API server's words, so that an API server that does not enforce the schema (or
 * prunes unknown fields silently) cannot let a typo switch a policy off; otherwise the check's
 * diagnostics decide, refused on the first error (as Kyverno stops there, the message naming the
 * field) with the warnings passed back either way.
 */
import { crdRefusal } from '@edict/engine';
import { isError, type Diagnostic } from '@edict/foundation';
import { allow, deny, type AdmissionDecision } from '../decision';
import { parseAdmissionReview } from './parse-review';
import { reviewResponse } from './response';
import type { AdmissionRequest } from './types';

/** What an HTTP handler sends back: the AdmissionReview, or 400 for a body that is none. */
export type ReviewAnswer = { status: 200; body: unknown } | { status: 400; body: { message: string } };

export async function answerValidation(
  body: unknown,
  check: (request: AdmissionRequest) => AdmissionDecision | Promise<AdmissionDecision>,
): Promise<ReviewAnswer> {
  const parsed = parseAdmissionReview(body);
  if (!parsed.ok) return { status: 400, body: { message: parsed.message } };
  const request = parsed.review.request;
  if (request.operation === 'DELETE' || !request.object) return answer(request.uid, allow());
  // On an update, a problem the stored object already had is let through (kube ratchets so).
  const refused = crdRefusal(request.object, request.operation === 'UPDATE' ? request.oldObject : undefined);
  return answer(request.uid, refused ? deny(refused.message) : await check(request));
}

function answer(uid: string, decision: AdmissionDecision): ReviewAnswer {
  return { status: 200, body: reviewResponse(uid, decision) };
}

export function decisionFrom(diagnostics: readonly Diagnostic[]): AdmissionDecision {
  const warnings = diagnostics.filter((d) => !isError(d)).map((d) => d.message);
  const error = diagnostics.find(isError);
  return error ? deny(error.path ? `${error.path}: ${error.message}` : error.message, warnings) : allow(warnings);
}
