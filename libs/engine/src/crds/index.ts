// CRDs: every CustomResourceDefinition Edict installs, generated from the DSL schemas, and the structural check.
export {
  CRD_DEFINITIONS,
  customResourceDefinition,
  customResourceDefinitions,
  rootSchema,
  type CrdDefinition,
  type CrdVersion,
  type PrinterColumn,
} from './crd-definitions';
export {
  cleanupPolicySpecSchema,
  ephemeralReportSpecSchema,
  globalContextEntrySpecSchema,
  policyReportFields,
  updateRequestSpecSchema,
} from './kind-schemas';
export { structuralProblems } from './structural';
export { crdRefusal, crdVersionFor, versionSchema, type CrdRefusal } from './crd-refusals';
export {
  ADMISSION_OPERATIONS,
  celPolicyExceptionSpecSchema,
  conditionStatusSchema,
  matchConditionSchema,
  matchResourcesSchema,
  validatingPolicySpecSchema,
  validatingPolicyStatusSchema,
} from './cel-policy-schemas';
export { imageValidatingPolicySpecSchema, imageValidatingPolicyStatusSchema } from './image-validating-policy-schemas';
export { mutatingPolicySpecSchema, mutatingPolicyStatusSchema, MUTATION_PATCH_TYPES } from './mutating-policy-schemas';
export { generatingPolicySpecSchema, generatingPolicyStatusSchema } from './generating-policy-schemas';
export { deletingPolicySpecSchema, deletingPolicyStatusSchema } from './deleting-policy-schemas';
