export {
  deadlineFromTimeout,
  MAX_WEBHOOK_TIMEOUT_MS,
  parseTimeout,
  withDeadline,
  timeoutDecision,
  decideWithin,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  type DeadlineResult,
  type DeadlineWork,
} from './deadline';
export { FairTurns, DEFAULT_TURN_MS } from './fair-turns';
