// Policy validation area: Kyverno's semantic checks of ClusterPolicy/Policy and PolicyException objects.
export { validatePolicy, type PolicyValidationOptions } from './validate-policy';
export { validatePolicyException, type ExceptionValidationOptions } from './exception';
export { checkRulesEdictRuns } from './unsupported-rules';
export { checkKindsServed, type KindLookup } from './kinds-served';
export { DEFAULT_CLUSTER_SCOPED_KINDS } from './kinds';
export { RESERVED_CONTEXT_NAMES } from './context-entries';
export { globalContextEntryReady, globalContextWarnings, type GlobalContextEntryLookup } from './global-context';
export {
  backgroundPermissionQuestions,
  checkBackgroundPermissions,
  reportsPermissionWarnings,
  type BackgroundPermissionOptions,
  type KindSelectorResolver,
  type ReportsPermissionOptions,
  type PermissionQuestion,
  type ResourceResolver,
} from './background-permissions';
