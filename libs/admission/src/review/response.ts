import type { AdmissionDecision } from '../decision';
import type { AdmissionResponse, AdmissionReview } from './types';

/**
 * The AdmissionReview the API server expects back: the request's uid, `allowed`, a Failure status
 * with the message when denied, the patch as base64 JSON with `patchType: JSONPatch` when there is
 * one, and warnings / audit annotations only when non-empty (the Go encoder omits empty ones).
 */
export function reviewResponse(uid: string, decision: AdmissionDecision): AdmissionReview {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: admissionResponse(uid, decision) };
}

export function admissionResponse(uid: string, decision: AdmissionDecision): AdmissionResponse {
  const response: AdmissionResponse = { uid, allowed: decision.allowed };
  if (!decision.allowed) {
    response.status = { status: 'Failure', message: decision.message ?? '' };
    if (decision.reason) response.status.reason = decision.reason;
    if (decision.code) response.status.code = decision.code;
  }
  if (decision.allowed && decision.patch && decision.patch.length > 0) {
    response.patch = Buffer.from(JSON.stringify(decision.patch)).toString('base64');
    response.patchType = 'JSONPatch';
  }
  if (decision.auditAnnotations && Object.keys(decision.auditAnnotations).length > 0)
    response.auditAnnotations = decision.auditAnnotations;
  if (decision.warnings && decision.warnings.length > 0) response.warnings = decision.warnings;
  return response;
}
