// @edict/policy: the policy cache the admission controller reads, fed by informers.
export { PolicyModule, type PolicyModuleAsyncOptions } from './policy.module';
export { PolicyModuleOptions, PolicyOptionsError, validatePolicyOptions } from './policy.options';
export { POLICY_OPTIONS, POLICY_FEEDS, CEL_POLICY_FEEDS, CEL_POLICY_COMPILERS_TOKEN } from './policy.constants';
export { CelPolicyCache, type CelPolicyCacheListener } from './cel/cel-policy-cache';
export { celPolicyValidation, isCelPolicyKind, type CelPolicyValidationOptions } from './cel/cel-policy-validation';
export {
  authorCheckNeeded,
  checkGeneratePermissions,
  generatesAcrossNamespaces,
  type GeneratePermissionOptions,
  type GenerateResourceResolver,
  type GenerateWriter,
} from './cel/generate-permissions';
export {
  CelPolicyStatusWriter,
  type CelPolicyStatusWriterDeps,
  type CelPolicyStatusWriterOptions,
  type CelPolicyStatusStore,
  type CelStatusPolicySource,
  type CelStatusPassOutcome,
  type ReportingPermissions,
} from './cel/cel-policy-status-writer';
export {
  desiredCelPolicyStatus,
  celStatusConditions,
  celStatusMatches,
  WEBHOOK_CONFIGURED,
  RBAC_PERMISSIONS_GRANTED,
  POLICY_CACHED,
  type CelPolicyStatusFacts,
  type CelPolicyCondition,
} from './cel/cel-policy-status';
export { KubeCelPolicyStatusStore } from './cel/kube-cel-policy-status-store';
export { AccessReviewReportingPermissions, MAX_CHECKED_RESOURCES } from './cel/reporting-permissions';
export {
  CelPolicyStore,
  CEL_POLICY_COMPILERS,
  fieldErrorsOf,
  policyKeyOf,
  type CelPolicyCompilers,
  type CelPolicyEntry,
  type CompiledCelPolicy,
  type CelExceptionEntry,
  type CelPolicyStoreOptions,
} from './cel/cel-policy-store';
export {
  createCelPolicyFeeds,
  VALIDATING_POLICY_REF,
  NAMESPACED_VALIDATING_POLICY_REF,
  IMAGE_VALIDATING_POLICY_REF,
  NAMESPACED_IMAGE_VALIDATING_POLICY_REF,
  MUTATING_POLICY_REF,
  NAMESPACED_MUTATING_POLICY_REF,
  GENERATING_POLICY_REF,
  NAMESPACED_GENERATING_POLICY_REF,
  DELETING_POLICY_REF,
  NAMESPACED_DELETING_POLICY_REF,
  CEL_POLICY_EXCEPTION_REF,
  type CelPolicyFeeds,
} from './cel/cel-policy-feeds';
export {
  isDeletingPolicyKind,
  isGeneratingPolicyKind,
  isImagePolicyKind,
  isMutatingPolicyKind,
  type CelPolicyKind,
  type ImagePolicyKind,
} from './cel/cel-policy-kinds';
export { PolicyCache, type PolicyCacheListener } from './policy-cache';
export { PolicySnapshot, compareKeys } from './cache/policy-snapshot';
export {
  PolicyStore,
  policyKey,
  type PolicyStoreOptions,
  type PolicyStoreSettings,
  type UpsertResult,
} from './cache/policy-store';
export { factsOf, ruleTypesOf, type RuleFacts } from './cache/rule-facts';
export {
  POLICY_RULE_TYPES,
  type PolicyRuleType,
  type FailurePolicy,
  type CachedPolicy,
  type InvalidPolicy,
  type CachedException,
  type PolicyQuery,
  type PolicyCacheStats,
} from './cache/types';
export {
  createPolicyFeeds,
  CLUSTER_POLICY_REF,
  POLICY_REF,
  POLICY_EXCEPTION_REF,
  type ObjectFeed,
  type PolicyFeeds,
} from './informers/policy-feeds';
export { CRD_DIRECTORY, findCrdDirectory, readCrdManifests } from './crds/crd-manifests';
export { installPolicyCrds, type CrdStore } from './crds/install-crds';
export {
  desiredPolicyStatus,
  policyReadiness,
  statusMatches,
  generationOf,
  READY_CONDITION,
  READY_MESSAGE,
  REASON_SUCCEEDED,
  REASON_FAILED,
  type PolicyStatus,
  type PolicyCondition,
  type PolicyRuleCount,
  type PolicyReadiness,
  type PolicyEntry,
  type WebhookPublication,
} from './status/policy-status';
export {
  PolicyStatusWriter,
  type PolicyStatusWriterDeps,
  type PolicyStatusWriterOptions,
  type StatusPassOutcome,
} from './status/policy-status-writer';
export { KubePolicyStatusStore } from './status/kube-policy-status-store';
export { enforcedByGeneratedAdmissionPolicy } from './status/generated-admission-policy';
export type { PolicyStatusStore, StatusPolicySource, WebhookPublicationSource } from './status/ports';
export {
  AdmissionConfigService,
  ADMISSION_CONFIG_SOURCE,
  type AdmissionConfigSource,
} from './config/admission-config.service';
