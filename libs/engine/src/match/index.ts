export type { MatchRequest } from './request';
export { gvkOf } from './request';
export { matchedNamespace } from './resource-filter';
export { ruleMatches, matchesResources, type RuleMatchResult } from './rule-match';
export { matchesExceptionResources } from './exception-match';
export { subjectsMatch } from './user-info';
export {
  compileExceptionMatch,
  compileKindGate,
  compileRuleMatch,
  type ExceptionMatch,
  type KindGate,
  type RuleMatcher,
} from './compiled-match';
