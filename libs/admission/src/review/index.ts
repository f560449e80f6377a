export type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  ReviewGroupVersionKind,
  ReviewGroupVersionResource,
  ReviewStatus,
} from './types';
export { parseAdmissionReview, type ParsedReview, type ReviewError } from './parse-review';
export { reviewResponse, admissionResponse } from './response';
export { answerValidation, decisionFrom, type ReviewAnswer } from './validation-review';
