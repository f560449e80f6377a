export {
  deadlineFromTimeout,
  parseTimeout,
  withDeadline,
  timeoutDecision,
  decideWithin,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  type DeadlineResult,
} from './deadline';
