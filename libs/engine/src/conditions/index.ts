export {
  ConditionError,
  evaluateCondition,
  evaluateConditions,
  type ConditionsResult,
  type PrepareCondition,
} from './evaluate';
export {
  CONDITION_OPERATORS,
  DEPRECATED_CONDITION_OPERATORS,
  V1_ONLY_CONDITION_OPERATORS,
  isConditionOperator,
} from './operators';
