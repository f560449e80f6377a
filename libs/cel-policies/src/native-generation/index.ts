// Generation of Kubernetes' own admission policies from Kyverno policies (pure).
export * from './types';
export * from './names';
export { canGenerateVap, celGenerateRequested, type Eligibility } from './cluster-policy-eligibility';
export { buildClusterPolicyVap } from './cluster-policy-vap';
export {
  buildValidatingPolicyVap,
  validatingPolicySkipReason,
  CEL_POLICY_OWNER_API_VERSION,
} from './validating-policy-vap';
export {
  buildMutatingPolicyMap,
  mutatingPolicySkipReason,
  mutatingAdmissionPolicyRequested,
  type MutatingPolicyObject,
} from './mutating-policy-map';
