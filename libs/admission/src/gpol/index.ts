export {
  CEL_GENERATE_REQUEST,
  generatingPolicyKey,
  generatingPolicyRequests,
  type GeneratingPathPolicy,
  type GeneratingPolicyRequestOptions,
} from './update-requests';
