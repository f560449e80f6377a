export {
  CEL_GENERATE_REQUEST,
  generatingPolicyKey,
  generatingPolicyRequests,
  type GeneratingPathPolicy,
  type GeneratingPolicyRequestOptions,
} from './update-requests';
export { GENERATING_POLICY_SOURCE, generatingPolicyReportResults } from './report-results';
