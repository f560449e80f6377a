export {
  evaluatePodSecurity,
  podSecurityRuleMessage,
  describeFieldErrors,
  type PssCheckResult,
  type PodSecurityEvaluation,
  type PodSecurityOptions,
} from './evaluate-pod-security';
export { PodSecurityError, RESOURCE_ERROR_PREFIX, VERSION_ERROR_PREFIX } from './errors';
export type { FieldError, BadValue } from './field-error';
export {
  CONTROL_CHECK_IDS,
  controlNameOf,
  RESTRICTED_CONTROLS,
  POD_LEVEL_CONTROLS,
  CONTAINER_LEVEL_CONTROLS,
} from './controls';
