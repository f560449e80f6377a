export {
  mutatingPolicyAdmission,
  mutatingPolicyReportResults,
  MUTATING_POLICY_SOURCE,
  type MutatingPolicyAdmissionOptions,
  type MutatingPolicyEvaluation,
  type MutatingPolicyOutcome,
  type MutatingPolicyPath,
} from './mutating-policy-admission';
