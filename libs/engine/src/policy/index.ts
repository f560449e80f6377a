// Policy area: Kyverno policy types, YAML reading, schema checks, loading and autogen.
export * from './types';
export {
  exceptionSpecSchema,
  policySpecSchema,
  validateExceptionSchema,
  validatePolicySchema,
  type PolicyApiVersion,
} from './schema';
export { type Schema } from './schema-dsl';
export { toOpenApiSchema } from './schema-openapi';
export { crdFieldErrors, type CrdFieldError } from './schema-field-errors';
export { classifyDocuments, loadPolicyDocuments, type LoadedPolicies } from './load';
export {
  AUTOGEN_CONTROLLERS_ANNOTATION,
  POD_CONTROLLERS,
  autogenRules,
  autogenStatus,
  effectiveControllers,
  isAutogenRuleName,
  withAutogen,
} from './autogen';
export { containsKind, kindOfEntry } from './kinds';
export { failurePolicyOf, webhookTimeoutSecondsOf, type FailurePolicy } from './webhook-settings';
