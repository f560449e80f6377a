export { blockedMessage, warningMessages, failedRulesWithErrors } from './messages';
export { marshalNestedStringMap, compareKeys } from './go-yaml';
