// Generate area: Kyverno generate rules (data, clone, cloneList, foreach), computed without applying.
export { generateResources } from './generate-resources';
export {
  normalizeGeneratedLabels,
  LABEL_MANAGED_BY,
  MANAGED_BY_KYVERNO,
  LABEL_POLICY_NAME,
  LABEL_POLICY_NAMESPACE,
  LABEL_RULE_NAME,
  LABEL_TRIGGER_GROUP,
  LABEL_TRIGGER_VERSION,
  LABEL_TRIGGER_KIND,
  LABEL_TRIGGER_NAMESPACE,
  LABEL_TRIGGER_UID,
  LABEL_SOURCE_GROUP,
  LABEL_SOURCE_VERSION,
  LABEL_SOURCE_KIND,
  LABEL_SOURCE_NAMESPACE,
  LABEL_SOURCE_NAME,
  LABEL_CLONE_SOURCE,
} from './labels';
export {
  concernsGenerate,
  isManagedByKyverno,
  generatedOrigin,
  clonedFromSelector,
  generatedForTriggerSelector,
  generatedTypes,
  type GeneratedOrigin,
  type LabelledTrigger,
} from './downstream';
export type {
  GeneratedFrom,
  GeneratingPolicy,
  GenerationDetails,
  GenerationRuleResponse,
  NotGenerated,
  ResourceRef,
} from './types';
