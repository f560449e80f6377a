// @edict/cel-policies: Kyverno's CEL policy family (policies.kyverno.io): ValidatingPolicy and its
// Namespaced form, and the CEL PolicyException. Pure: everything it reads comes through interfaces.
export * from './api/types';
export {
  isValidatingPolicy,
  isCelPolicyException,
  isImageValidatingPolicy,
  isMutatingPolicy,
  isGeneratingPolicy,
  isDeletingPolicy,
} from './api/kinds';
export { ValidatingPolicyError } from './compile/policy-error';
export type { CompiledValidatingPolicy } from './compile/compiled-policy';
export { compileValidatingPolicy, validatingPolicyErrors } from './compile/compile-policy';
export type { CelPolicyInput, CelPolicyContext, CelLibraryPorts } from './evaluate/input';
export { evaluateValidatingPolicy } from './evaluate/evaluate-policy';
export type { CompiledCelPolicyException } from './exceptions/compiled-exception';
export {
  compileCelPolicyException,
  celPolicyExceptionErrors,
  CelPolicyExceptionError,
} from './exceptions/compile-exception';
export { autogenConfigs, autogenStatus } from './autogen/autogen';
export type * from './image-validating/types';
export type { CompiledImageValidatingPolicy } from './image-validating/compiled-policy';
export { compileImageValidatingPolicy, imageValidatingPolicyErrors } from './image-validating/compile';
export { evaluateImageValidatingPolicy, evaluateImageValidatingPolicies } from './image-validating/evaluate';
export {
  mutateImageDigests,
  imageVerificationOutcomePatches,
  IMAGE_VERIFICATION_OUTCOMES_ANNOTATION,
} from './image-validating/digests';
export {
  IVPOL_LIMITS,
  ImageVerificationRecord,
  type DigestMutation,
  type ImageValidatingPolicyContext,
  type ImageValidatingPolicyOutcome,
  type IvpolPorts,
  type OciAccessRequest,
} from './image-validating/ports';
export type * from './mutating/types';
export { MutatingPolicyError } from './mutating/policy-error';
export { compileMutatingPolicy, mutatingPolicyErrors } from './mutating/compile';
export {
  evaluateMutatingPolicy,
  evaluateMutatingPolicyOnTarget,
  triggersMutateExisting,
  type MutatingPolicyContext,
} from './mutating/evaluate';
export {
  mutateExistingTargets,
  MAX_MUTATE_EXISTING_TARGETS,
  type TargetCandidate,
  type TargetSelection,
} from './mutating/targets';
export { evaluateMutatingPolicies, type MutatingChainResult } from './mutating/chain';
