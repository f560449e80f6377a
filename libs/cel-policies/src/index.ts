// @edict/cel-policies: Kyverno's CEL policy family (policies.kyverno.io): ValidatingPolicy and its
// Namespaced form, ImageValidatingPolicy, DeletingPolicy, and the CEL PolicyException. Pure:
// everything it reads comes through interfaces.
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
export type * from './deleting/types';
export type { CompiledDeletingPolicy } from './deleting/compiled-policy';
export { DeletingPolicyError } from './deleting/policy-error';
export { compileDeletingPolicy, deletingPolicyErrors } from './deleting/compile';
export { evaluateDeletingPolicy, type DeletingPolicyInput, type DeletingPolicyOutcome } from './deleting/evaluate';
export { executionTime, nextExecutionTime } from './deleting/schedule';
export type * from './generating/types';
export { GPOL_LIMITS } from './generating/types';
export { GeneratingPolicyError } from './generating/policy-error';
export {
  compileGeneratingPolicy,
  generatingPolicyErrors,
  type GeneratingPolicyCheckOptions,
} from './generating/compile';
export { evaluateGeneratingPolicy } from './generating/evaluate';
export { LABEL_TRIGGER_NAME, LABEL_SOURCE_UID } from './generating/downstream';
export { evaluateMutatingPolicies, type MutatingChainResult } from './mutating/chain';
export * from './native-generation';
