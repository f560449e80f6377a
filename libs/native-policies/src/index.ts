// @edict/native-policies: Kubernetes' own admission policies, evaluated as kube-apiserver does
// (match resources, match conditions, ValidatingAdmissionPolicy with bindings and params). Pure: it
// depends on @edict/foundation and @edict/cel only, so the in-memory API server can use it too.
export type {
  AdmissionAttributes,
  AdmissionOperation,
  GroupVersionKind,
  GroupVersionResource,
  MatchResources,
  NamedRuleWithOperations,
} from './types';
export { isExemptAdmissionConfiguration, namedRuleMatches, ruleMatches } from './matching/rules';
export { equivalentsFromRules, type EquivalentResource, type EquivalentResources } from './matching/equivalents';
export {
  matchesResources,
  matchResources,
  type MatchDecision,
  type MatchResourcesOptions,
} from './matching/match-resources';
export { celRequestOf, type MatchedAs } from './request';
export {
  compileMatchConditions,
  evaluateMatchConditions,
  matchConditionErrors,
  MatchConditionError,
  MAX_MATCH_CONDITIONS,
  type CompiledMatchConditions,
  type MatchCondition,
  type MatchConditionOptions,
  type MatchConditionsResult,
} from './match-conditions';
export { OUT_OF_BUDGET, PER_CALL_STEPS, PER_EXPRESSION_STEPS, type Authorize, type CelBounds } from './cel/round';
export type { FieldError } from './field-errors';
export {
  ADMISSION_REGISTRATION,
  isValidatingAdmissionPolicy,
  isValidatingAdmissionPolicyBinding,
  readBinding,
  readPolicy,
  type AuditAnnotation,
  type BindingSpec,
  type FailurePolicy,
  type ParamKind,
  type ParamRef,
  type PolicySpec,
  type Validation,
  type ValidationAction,
  type Variable,
} from './vap/spec';
export {
  compileValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyError,
  type CompiledValidatingAdmissionPolicy,
} from './vap/compile';
export { validatingAdmissionPolicyBindingErrors, validatingAdmissionPolicyErrors } from './vap/validation';
export { collectParams, MAX_PARAMS_PER_BINDING, paramsFromObjects, type ParamSource } from './vap/params';
export type { AuditAnnotationResult, DecisionAction, DecisionEvaluation, PolicyDecision } from './vap/validator';
export {
  evaluateValidatingAdmissionPolicy,
  type ValidationFailure,
  type VapBindingEvaluation,
  type VapCall,
  type VapContext,
  type VapDenial,
  type VapEvaluation,
} from './vap/evaluate';
export { dispatchValidatingAdmissionPolicies, type VapDispatch } from './vap/dispatch';
export {
  cliAttributes,
  evaluateForCli,
  evaluatePoliciesForCli,
  type CliRuleStatus,
  type VapCliInput,
  type VapCliResult,
  type VapCliRule,
} from './vap/cli';
// Mutations (MutatingAdmissionPolicy, and Kyverno's MutatingPolicy on top): compileMutation checks
// and compiles one `spec.mutations[i]`; applyMutation evaluates it (context.evaluate: the caller's
// bounded evaluation, else Edict's CEL bounds) and applies the result to a copy of the object:
// ApplyConfiguration by structured merge (context.shape: DEDUCED_SHAPE as Kyverno's CLI,
// builtinShape for built-in kinds, schemaShape for a CRD's schema), JSONPatch by RFC 6902.
export {
  compileMutation,
  isCompiledMutation,
  PATCH_TYPES,
  type CompiledMutation,
  type MutationCompileOptions,
  type MutationSpec,
  type PatchType,
} from './mutation/compile';
export {
  applyMutation,
  MUTATION_LIMITS,
  MutationError,
  patchWithValue,
  type MutationContext,
  type MutationLimits,
} from './mutation/apply';
export { builtinShape, DEDUCED_SHAPE, schemaShape, type ListShape, type MergeShape } from './mutation/shape';
export { atomicPaths, structuredMerge, StructuredMergeError } from './mutation/structured-merge';
export { applyJsonPatchOperations, JsonPatchError, type JsonPatchOperation } from './mutation/json-patch';
// MutatingAdmissionPolicy with bindings and params: compiled, evaluated per request as kube's
// dispatcher does (with reinvocation), and as Kyverno's CLI evaluates it.
export {
  isMutatingAdmissionPolicy,
  isMutatingAdmissionPolicyBinding,
  readMutatingBinding,
  readMutatingPolicy,
  type MutatingBindingSpec,
  type MutatingPolicySpec,
  type ReinvocationPolicy,
} from './map/spec';
export {
  compileMutatingAdmissionPolicy,
  compileMutatingPolicyExpressions,
  MutatingAdmissionPolicyError,
  type CompiledMutatingAdmissionPolicy,
} from './map/compile';
export {
  evaluateMutatingAdmissionPolicy,
  invocationKey,
  invokeMutatingAdmissionPolicy,
  type InvocationObserver,
  type MapContext,
  type MapEvaluation,
  type MapInvocation,
  type MapPolicyError,
  type MutationOutcome,
  type MutationStatus,
} from './map/evaluate';
export {
  admitMutatingAdmissionPolicies,
  dispatchMutatingAdmissionPolicies,
  MapReinvocationContext,
  type MapDenial,
  type MapDispatch,
} from './map/dispatch';
export { evaluateMutatingPolicyForCli, type MapCliInput, type MapCliResult, type MapCliRule } from './map/cli';
export { mutatingAdmissionPolicyBindingErrors, mutatingAdmissionPolicyErrors } from './map/validation';
