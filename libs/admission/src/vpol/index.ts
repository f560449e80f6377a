export {
  validatingPolicyAdmission,
  type ValidatingPolicyAdmissionOptions,
  type ValidatingPolicyEvaluation,
  type ValidatingPolicyOutcome,
} from './validating-policy-admission';
export {
  parseValidatingPolicyPath,
  validatingPoliciesForPath,
  validatingPolicyKey,
  type PathPolicy,
  type ValidatingPolicyPath,
} from './select';
export {
  validatingPolicyReportResults,
  isReportable,
  processOf,
  VALIDATING_POLICY_SOURCE,
  IMAGE_VALIDATING_POLICY_SOURCE,
} from './report-results';
export {
  admissionVerdict,
  celPolicyInput,
  crashedValidatingPolicy,
  policyReviewOutcome,
  servedPolicies,
} from './policy-review';
export { policyEventApiVersion, exceptionEventApiVersion } from './event-api-versions';
