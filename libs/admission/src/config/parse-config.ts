import {
  DEFAULT_EVALUATION_LIMITS,
  isObject,
  labelSelectorError,
  parseQuantity,
  quantityToNumber,
  type EvaluationLimits,
  type JsonValue,
  type LabelSelector,
} from '@edict/foundation';
import { parseResourceFilters } from './resource-filters';
import type {
  AdmissionConfig,
  ConfigProblem,
  ParsedAdmissionConfig,
  SubjectPatterns,
  WebhookMatchCondition,
  WebhookSelectors,
} from './types';

export interface ConfigDefaults {
  /** The namespace the controller runs in; excluded from admission unless configured otherwise. */
  controllerNamespace: string;
}

/** Kyverno's default `updateRequestThreshold`. */
const DEFAULT_UPDATE_REQUEST_THRESHOLD = 1000;
/** The largest threshold taken (far above any cluster's working set; keeps the value an exact integer). */
const MAX_UPDATE_REQUEST_THRESHOLD = 1_000_000_000;

const emptyPatterns = (): SubjectPatterns => ({ usernames: [], groups: [], roles: [], clusterRoles: [] });

/** The configuration with no ConfigMap: nothing filtered but the controller's namespace and kube-system. */
export function defaultAdmissionConfig(defaults: ConfigDefaults): AdmissionConfig {
  return {
    resourceFilters: [],
    exclusions: emptyPatterns(),
    inclusions: emptyPatterns(),
    excludedNamespaces: [defaults.controllerNamespace, 'kube-system'],
    exceptionNamespaces: [],
    generateSuccessEvents: false,
    successEventActions: [],
    defaultRegistry: 'docker.io',
    enableDefaultRegistryMutation: true,
    webhook: {},
    webhookAnnotations: { ...DEFAULT_WEBHOOK_ANNOTATIONS },
    webhookLabels: {},
    matchConditions: [],
    limits: DEFAULT_EVALUATION_LIMITS,
    updateRequestThreshold: DEFAULT_UPDATE_REQUEST_THRESHOLD,
  };
}

/**
 * The annotations of the webhook configurations when the ConfigMap sets none: Kyverno's chart default
 * (`config.webhookAnnotations`), which keeps GKE Autopilot's admission enforcer off them.
 */
export const DEFAULT_WEBHOOK_ANNOTATIONS: Readonly<Record<string, string>> = { 'admissions.enforcer/disabled': 'true' };
/** The API server's limit on a webhook's match conditions. */
const MAX_MATCH_CONDITIONS = 64;
/** Sizes the API server allows for a match condition's name and expression. */
const MAX_CONDITION_NAME = 63;
const MAX_CONDITION_EXPRESSION = 5 * 1024;
/** A bound on the annotations and labels the ConfigMap may add (each key and value size-checked too). */
const MAX_METADATA_ENTRIES = 64;

/** The largest context or document size the ConfigMap may set (a bound on the bound: 64 MiB). */
const MAX_CONTEXT_SIZE_LIMIT = 64 * 1024 * 1024;
/** The largest `maxRuleOperations` the ConfigMap may set. */
const MAX_RULE_OPERATIONS_LIMIT = 10_000_000;

const SUBJECT_KEYS = {
  excludeUsernames: 'usernames',
  excludeGroups: 'groups',
  excludeRoles: 'roles',
  excludeClusterRoles: 'clusterRoles',
} as const;

/**
 * Reads a ConfigMap's `data` in the format of Kyverno's `kyverno` ConfigMap (same keys, same value
 * syntax), so users can reuse theirs. Like Kyverno, a bad value is reported and that key keeps its
 * default; the rest still loads. Edict adds `excludedNamespaces` and `exceptionNamespaces`
 * (comma-separated, wildcards allowed), `maxDocumentSize` (a size, like `maxContextSize`) and
 * `maxRuleOperations` (a count): the bounds of what a mutate or generate rule builds.
 */
export function parseAdmissionConfig(
  data: Record<string, unknown> | null | undefined,
  defaults: ConfigDefaults,
): ParsedAdmissionConfig {
  const config = defaultAdmissionConfig(defaults);
  const problems: ConfigProblem[] = [];
  const problem = (key: string, message: string) => problems.push({ key, message: `${key}: ${message}` });
  /** A size in bytes or as a quantity, from `min` to 64Mi; undefined (and a problem) otherwise. */
  const readSize = (key: string, min: number): number | undefined => {
    const value = text(key);
    if (value === undefined) return undefined;
    const quantity = parseQuantity(value.trim());
    const bytes = quantity ? quantityToNumber(quantity) : NaN;
    if (Number.isInteger(bytes) && bytes >= min && bytes <= MAX_CONTEXT_SIZE_LIMIT) return bytes;
    problem(
      key,
      `${JSON.stringify(value)} is not a size from ${min / 1024}Ki to 64Mi (bytes, or a quantity such as 2Mi)`,
    );
    return undefined;
  };
  const text = (key: string): string | undefined => {
    const value = data?.[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      problem(key, `must be a string, got ${typeof value}`);
      return undefined;
    }
    return value;
  };

  const filters = text('resourceFilters');
  if (filters !== undefined) {
    const parsed = parseResourceFilters(filters);
    config.resourceFilters = parsed.filters;
    for (const message of parsed.problems) problem('resourceFilters', message);
  }
  for (const [key, field] of Object.entries(SUBJECT_KEYS)) {
    const value = text(key);
    if (value === undefined) continue;
    const { exclude, include } = parseSubjectList(value);
    config.exclusions[field] = exclude;
    config.inclusions[field] = include;
  }
  const registry = text('defaultRegistry');
  if (registry !== undefined) {
    if (DNS_NAME.test(registry)) config.defaultRegistry = registry;
    else problem('defaultRegistry', `${JSON.stringify(registry)} is not a valid DNS hostname`);
  }
  const booleans = [
    ['enableDefaultRegistryMutation', (v: boolean) => (config.enableDefaultRegistryMutation = v)],
    ['generateSuccessEvents', (v: boolean) => (config.generateSuccessEvents = v)],
  ] as const;
  for (const [key, set] of booleans) {
    const value = text(key);
    if (value === undefined) continue;
    const parsed = parseGoBool(value);
    if (parsed === undefined) problem(key, `${JSON.stringify(value)} is not a boolean`);
    else set(parsed);
  }
  const webhooks = text('webhooks');
  if (webhooks !== undefined) {
    const parsed = parseJson(webhooks);
    if (!parsed.ok) problem('webhooks', parsed.error);
    else {
      // Kyverno reads one object; Kyverno before 1.10 read a list and applied its first entry.
      const value = Array.isArray(parsed.value) ? (parsed.value[0] ?? {}) : parsed.value;
      const error = webhookSelectorsError(value, Array.isArray(parsed.value) ? '[0].' : '');
      if (error) problem('webhooks', error);
      else config.webhook = value as unknown as WebhookSelectors;
    }
  }
  const actions = text('successEventActions');
  if (actions !== undefined) config.successEventActions = [...new Set(splitList(actions))];
  for (const key of ['webhookAnnotations', 'webhookLabels'] as const) {
    const value = text(key);
    if (value === undefined) continue;
    const parsed = parseJson(value);
    if (!parsed.ok) problem(key, parsed.error);
    else {
      const error = stringMapError(parsed.value, key === 'webhookLabels');
      if (error) problem(key, error);
      else config[key] = parsed.value as Record<string, string>;
    }
  }
  const matchConditions = text('matchConditions');
  if (matchConditions !== undefined) {
    const parsed = parseJson(matchConditions);
    if (!parsed.ok) problem('matchConditions', parsed.error);
    else {
      const error = matchConditionsError(parsed.value);
      if (error) problem('matchConditions', error);
      else config.matchConditions = parsed.value as unknown as WebhookMatchCondition[];
    }
  }
  for (const key of ['excludedNamespaces', 'exceptionNamespaces'] as const) {
    const value = text(key);
    if (value !== undefined) config[key] = splitList(value);
  }
  let limits: EvaluationLimits = { ...DEFAULT_EVALUATION_LIMITS };
  const contextSize = readSize('maxContextSize', 1024);
  // One bound for both: what context entries add and what any JMESPath expression builds.
  if (contextSize !== undefined) limits = { ...limits, maxContextSize: contextSize, maxResultSize: contextSize };
  const documentSize = readSize('maxDocumentSize', 64 * 1024);
  if (documentSize !== undefined) limits = { ...limits, maxDocumentSize: documentSize };
  const operations = text('maxRuleOperations');
  if (operations !== undefined) {
    const value = /^\s*\d{1,10}\s*$/.test(operations) ? Number(operations) : NaN;
    if (!(value >= 100 && value <= MAX_RULE_OPERATIONS_LIMIT))
      problem('maxRuleOperations', `${JSON.stringify(operations)} is not a whole number from 100 to 10000000`);
    else limits = { ...limits, maxRuleOperations: value };
  }
  const changed = (Object.keys(limits) as (keyof EvaluationLimits)[]).some(
    (key) => limits[key] !== DEFAULT_EVALUATION_LIMITS[key],
  );
  if (changed) config.limits = Object.freeze(limits);
  const threshold = text('updateRequestThreshold');
  if (threshold !== undefined) {
    const value = /^\s*\d{1,10}\s*$/.test(threshold) ? Number(threshold) : NaN;
    // Kyverno takes any integer; 0 or less would stop every generate and mutate-existing rule.
    if (!(value >= 1 && value <= MAX_UPDATE_REQUEST_THRESHOLD))
      problem('updateRequestThreshold', `${JSON.stringify(threshold)} is not a whole number from 1 to 1000000000`);
    else config.updateRequestThreshold = value;
  }
  return { config, problems };
}

/** Kyverno's parseExclusions: comma-separated, trimmed; `!name` is an inclusion that wins over exclusions. */
function parseSubjectList(value: string): { exclude: string[]; include: string[] } {
  const exclude: string[] = [];
  const include: string[] = [];
  for (const raw of value.split(',')) {
    let entry = raw.trim();
    if (entry === '') continue;
    if (entry.startsWith('!')) {
      entry = entry.slice(1).trim();
      if (entry !== '') include.push(entry);
    } else exclude.push(entry);
  }
  return { exclude, include };
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Go's strconv.ParseBool. */
function parseGoBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

const DNS_NAME =
  /^(?=.{1,253}$)([a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9])?)*\.?$/;

function parseJson(text: string): { ok: true; value: JsonValue } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (error) {
    return { ok: false, error: `not valid JSON: ${(error as Error).message}` };
  }
}

function webhookSelectorsError(entry: JsonValue, at: string): string | undefined {
  if (!isObject(entry)) return 'must be a JSON object {namespaceSelector, objectSelector}';
  for (const field of ['namespaceSelector', 'objectSelector'] as const) {
    const selector = entry[field];
    if (selector === undefined || selector === null) continue;
    if (!isObject(selector)) return `${at}${field} must be a label selector object`;
    const error = labelSelectorError(selector as unknown as LabelSelector);
    if (error) return `${at}${field}: ${error}`;
  }
  return undefined;
}

/** The API server's checks of a webhook's matchConditions (names unique, sizes, at most 64). */
function matchConditionsError(value: JsonValue): string | undefined {
  if (!Array.isArray(value)) return 'must be a JSON array of {name, expression}';
  if (value.length > MAX_MATCH_CONDITIONS) return `must have at most ${MAX_MATCH_CONDITIONS} items`;
  const names = new Set<string>();
  for (const [index, entry] of value.entries()) {
    if (!isObject(entry)) return `[${index}] must be an object`;
    const { name, expression } = entry;
    if (typeof name !== 'string' || !QUALIFIED_NAME.test(name) || name.length > MAX_CONDITION_NAME)
      return `[${index}].name must be a qualified name of at most ${MAX_CONDITION_NAME} characters`;
    if (names.has(name)) return `[${index}].name ${JSON.stringify(name)} is a duplicate`;
    names.add(name);
    if (typeof expression !== 'string' || expression.trim() === '')
      return `[${index}].expression must be a non-empty string`;
    if (expression.length > MAX_CONDITION_EXPRESSION)
      return `[${index}].expression must be at most ${MAX_CONDITION_EXPRESSION} characters`;
  }
  return undefined;
}

const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function stringMapError(value: JsonValue, labels: boolean): string | undefined {
  if (!isObject(value)) return 'must be a JSON object of strings';
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_ENTRIES) return `must have at most ${MAX_METADATA_ENTRIES} entries`;
  for (const [key, entry] of entries) {
    if (typeof entry !== 'string') return `value of ${JSON.stringify(key)} must be a string`;
    if (!QUALIFIED_NAME.test(key) || key.length > 316) return `${JSON.stringify(key)} is not a valid key`;
    if (labels && entry !== '' && !LABEL_VALUE.test(entry))
      return `value of ${JSON.stringify(key)} is not a valid label value`;
  }
  return undefined;
}
