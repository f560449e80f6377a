export {
  CLEANUP_POLICY_KINDS,
  DELETION_PROPAGATION_POLICIES,
  isCleanupPolicyKind,
  type CleanupPolicy,
  type CleanupPolicyKind,
  type CleanupPolicySpec,
  type DeletionPropagationPolicy,
} from './cleanup-policy';
export { CronScheduleError, cronScheduleProblem, parseCronSchedule, type CronSchedule } from './cron-schedule';
export { validateCleanupPolicy, type CleanupValidationOptions } from './validate-cleanup-policy';
export {
  checkCleanupPermissions,
  cleanupPolicyKinds,
  type CleanupKindResolver,
  type CleanupPermissionOptions,
} from './cleanup-permissions';
