// The engine's public surface. Apps import only from '@edict/engine'.
export * from './policy';
export * from './policy-validation';
export * from './core/types';
export * from './core/loaders';
// Registry access and the verification cache reach the cluster wiring through the engine.
export { VerificationCache, type OciReader } from '@edict/image-verify';
export * from './engine/engine';
export {
  isScored,
  policyReportResult,
  scoredResult,
  SCORED_ANNOTATION,
  type PolicyReportResult,
  type ReportedPolicy,
  type ReportedResource,
} from './core/report-result';
export { failureActionFor, type FailureAction } from './core/failure-action';
export * from './verify-images';
export * from './conditions';
export * from './match';
export * from './cleanup';
export * from './crds';
export { loadContextEntries, ContextEntryError, type ContextLoadOptions } from './context-entries';
export * from './images';
export * from './pss';
export { matchPattern, matchValue, type PatternResult } from './pattern';
export { applyJson6902, applyStrategicMergePatch, type PatchOutcome } from './mutate/patch';
export { admissionPatch, type JsonPatchOperation } from './mutate/admission-patch';
export {
  normalizeGeneratedLabels,
  LABEL_MANAGED_BY,
  MANAGED_BY_KYVERNO,
  LABEL_POLICY_NAME,
  LABEL_POLICY_NAMESPACE,
  LABEL_RULE_NAME,
  LABEL_TRIGGER_GROUP,
  LABEL_TRIGGER_VERSION,
  LABEL_TRIGGER_KIND,
  LABEL_TRIGGER_NAMESPACE,
  LABEL_TRIGGER_UID,
  type GenerationDetails,
  type GenerationRuleResponse,
  type GeneratedFrom,
  type NotGenerated,
} from './generate';
export {
  EvaluationContext,
  substituteVariables,
  VariableSubstitutionError,
  ContextQueryError,
  hasVariables,
  findVariables,
  type SubstitutionOptions,
} from './variables';
// Synchronize: the generate labels read back (which rule and trigger a downstream object belongs to).
export {
  LABEL_CLONE_SOURCE,
  concernsGenerate,
  isManagedByKyverno,
  generatedOrigin,
  clonedFromSelector,
  generatedForTriggerSelector,
  generatedTypes,
  type GeneratedOrigin,
  type LabelledTrigger,
} from './generate';
