export {
  deadlineFromTimeout,
  parseTimeout,
  withDeadline,
  timeoutDecision,
  decideWithin,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  type DeadlineResult,
  type DeadlineWork,
} from './deadline';
