export type {
  AdmissionConfig,
  ConfigProblem,
  ParsedAdmissionConfig,
  ResourceFilterEntry,
  SubjectPatterns,
  WebhookMatchCondition,
  WebhookSelectors,
} from './types';
export { parseAdmissionConfig, defaultAdmissionConfig, type ConfigDefaults } from './parse-config';
export { parseResourceFilters, matchesResourceFilters } from './resource-filters';
export { isFiltered } from './is-filtered';
