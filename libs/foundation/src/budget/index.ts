export { EvaluationBudget, isBudgetError } from './budget';
export { deadlineAfter, deadlineAt, EvaluationDeadlineExceeded, type EvaluationDeadline } from './deadline';
export { jsonSizeWithin, type SizeMemo } from './json-size';
export {
  DEFAULT_EVALUATION_LIMITS,
  DEFAULT_MAX_CONTEXT_SIZE,
  DEFAULT_MAX_DOCUMENT_SIZE,
  DEFAULT_MAX_RULE_OPERATIONS,
  EvaluationLimitExceeded,
  formatSize,
  type EvaluationLimits,
} from './limits';
