/**
 * The ValidatingPolicy webhooks Kyverno publishes in its resource validating configuration
 * (`vpol.<validating webhook name>`, paths under `/vpol/`):
 *  - a policy asking for its own webhook (matchConditions, matchPolicy Exact, a timeout) gets a
 *    fine-grained one, `<base>-fail-finegrained-<name>` (or `-ignore-`), at `/vpol/<name>`, with its
 *    match conditions (Pod conditions guarded by the Pod kind, each autogen config's conditions
 *    guarded by its targets' kinds, as Kyverno rewrites them) and its matchPolicy;
 *  - the others share `<base>-fail` / `<base>-ignore` by failure policy, at `/vpol/<their names>`,
 *    as long as their namespace and object selectors agree (a group with other selectors gets its
 *    own `-fail-2`...: merging them would drop requests another policy needs).
 * Rules are the policy's resourceRules and its autogen configs' (pod controllers), sorted as Kyverno
 * sorts them; the configuration's namespace and object selectors are combined with the policy's.
 * A NamespacedValidatingPolicy is always fine-grained and only sees its own namespace.
 * ImageValidatingPolicies are built the same way under their own prefix and path (`ivpol.` at
 * `/ivpol/validate/...`, and their mutating twins `ivpol.<mutating name>` at `/ivpol/mutate/...`).
 * Conditions reading `namespaceObject` stay with Edict (kube-apiserver binds it to null); more
 * than kube's 64 conditions are all left to Edict (the webhook then sends every request). A set of
 * conditions (the policy's, or one autogen config's) of which any does not compile in kube-apiserver's
 * webhook environment (a Kyverno library such as `image()`) is left out whole, as Kyverno does: the
 * API server would refuse the configuration; Edict evaluates them on every request it is sent. A
 * policy whose own conditions are so left out is not fine-grained for them.
 */
import { compileCel } from '@edict/cel';
import { isObject, type JsonObject, type JsonValue, type LabelSelector } from '@edict/foundation';
import { MAX_TIMEOUT_SECONDS } from './names';
import type {
  MatchCondition,
  MutatingWebhook,
  OperationType,
  RuleWithOperations,
  ScopeType,
  ValidatingWebhook,
  WebhookClientConfig,
  WebhookFailurePolicy,
} from './types';

/** What the builder reads of a compiled ValidatingPolicy (CompiledValidatingPolicy fits). */
export interface ValidatingPolicyWebhookSource {
  readonly kind:
    | 'ValidatingPolicy'
    | 'NamespacedValidatingPolicy'
    | 'ImageValidatingPolicy'
    | 'NamespacedImageValidatingPolicy'
    | 'GeneratingPolicy'
    | 'NamespacedGeneratingPolicy';
  readonly name: string;
  readonly namespace?: string;
  readonly failurePolicy: WebhookFailurePolicy;
  /** evaluation.admission.enabled: a policy that is not evaluated at admission needs no webhook. */
  readonly admission: boolean;
  readonly timeoutSeconds?: number;
  /** The policy object: spec.matchConstraints and spec.matchConditions as written. */
  readonly policy: JsonObject;
  /** status.autogen as Kyverno writes it: `{ configs: { <name>: { targets, spec } } }`. */
  readonly autogenStatus: JsonObject;
}

export interface ValidatingPolicyWebhookOptions {
  /** The resource validating webhook's name (`validate.<install>.svc`); `vpol.` is put in front. */
  readonly validatingWebhookName: string;
  /** The webhook name prefix (default `vpol`). */
  readonly prefix?: string;
  /** The path the policy names are appended to (default `/vpol`). */
  readonly path?: string;
  readonly client: (path: string) => WebhookClientConfig;
  readonly defaultTimeoutSeconds: number;
  /** The configuration's selectors (excluded namespaces, the object selector). */
  readonly namespaceSelector: LabelSelector;
  readonly objectSelector: LabelSelector;
}

/** Kyverno's path prefix for ValidatingPolicies. */
export const VALIDATING_POLICY_PATH = '/vpol';
/** kube-apiserver's limit of match conditions per webhook. */
export const MAX_MATCH_CONDITIONS = 64;

const POD_TARGET: Target = { group: '', version: 'v1', resource: 'pods', kind: 'Pod' };

interface Target {
  group: string;
  version: string;
  resource: string;
  kind: string;
}

interface PreparedPolicy {
  readonly source: ValidatingPolicyWebhookSource;
  readonly rules: RuleWithOperations[];
  readonly matchConditions: MatchCondition[];
  readonly exact: boolean;
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  readonly fineGrained: boolean;
}

/** The `vpol` webhooks of the policies, in name order. */
export function validatingPolicyWebhooks(
  policies: Iterable<ValidatingPolicyWebhookSource>,
  options: ValidatingPolicyWebhookOptions,
): ValidatingWebhook[] {
  const base = `${options.prefix ?? 'vpol'}.${options.validatingWebhookName}`;
  const path = options.path ?? VALIDATING_POLICY_PATH;
  const timeout = (seconds?: number) =>
    Math.min(Math.max(options.defaultTimeoutSeconds, seconds ?? 0), MAX_TIMEOUT_SECONDS);
  const webhooks: ValidatingWebhook[] = [];
  const groups = new Map<string, PreparedPolicy[]>();
  for (const source of [...policies].sort((a, b) => compare(keyOf(a), keyOf(b)))) {
    if (!source.admission) continue;
    const prepared = prepare(source);
    if (prepared.rules.length === 0) continue;
    if (prepared.fineGrained) {
      const suffix = source.failurePolicy === 'Ignore' ? 'ignore' : 'fail';
      const id = source.namespace ? `${source.namespace}.${source.name}` : source.name;
      webhooks.push({
        admissionReviewVersions: ['v1'],
        clientConfig: options.client(`${path}/${source.name}`),
        failurePolicy: source.failurePolicy,
        ...(prepared.matchConditions.length > 0 ? { matchConditions: prepared.matchConditions } : {}),
        matchPolicy: prepared.exact ? 'Exact' : 'Equivalent',
        name: `${base}-${suffix}-finegrained-${id}`,
        namespaceSelector: combine(
          options.namespaceSelector,
          prepared.namespaceSelector,
          source.namespace ? ownNamespace(source.namespace) : undefined,
        ),
        objectSelector: combine(options.objectSelector, prepared.objectSelector),
        rules: prepared.rules,
        sideEffects: 'NoneOnDryRun',
        timeoutSeconds: timeout(source.timeoutSeconds),
      });
      continue;
    }
    const group = `${source.failurePolicy}\u0000${JSON.stringify([prepared.namespaceSelector ?? {}, prepared.objectSelector ?? {}])}`;
    groups.set(group, [...(groups.get(group) ?? []), prepared]);
  }
  for (const failurePolicy of ['Fail', 'Ignore'] as const) {
    const suffix = failurePolicy === 'Ignore' ? 'ignore' : 'fail';
    // The group without selectors of its own (when there is one) keeps the plain name.
    const mine = [...groups.entries()]
      .filter(([key]) => key.startsWith(`${failurePolicy}\u0000`))
      .sort(([a], [b]) => (isPlain(a) === isPlain(b) ? compare(a, b) : isPlain(a) ? -1 : 1));
    mine.forEach(([, members], index) => {
      const first = members[0]!;
      const names = [...new Set(members.map((m) => m.source.name))].sort();
      webhooks.push({
        admissionReviewVersions: ['v1'],
        clientConfig: options.client(`${path}/${names.join('/')}`),
        failurePolicy,
        matchPolicy: 'Equivalent',
        name: index === 0 ? `${base}-${suffix}` : `${base}-${suffix}-${index + 1}`,
        namespaceSelector: combine(options.namespaceSelector, first.namespaceSelector),
        objectSelector: combine(options.objectSelector, first.objectSelector),
        rules: sortRules(dedupe(members.flatMap((m) => m.rules))),
        sideEffects: 'NoneOnDryRun',
        timeoutSeconds: timeout(Math.max(0, ...members.map((m) => m.source.timeoutSeconds ?? 0))),
      });
    });
  }
  return webhooks.sort((a, b) => compare(a.name, b.name));
}

function isPlain(groupKey: string): boolean {
  return groupKey.endsWith('\u0000[{},{}]');
}

function prepare(source: ValidatingPolicyWebhookSource): PreparedPolicy {
  const spec = isObject(source.policy.spec) ? source.policy.spec : {};
  const match = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const conditions = kubeCompilable(matchConditionsOf(spec.matchConditions));
  const rules = rulesOf(match.resourceRules);
  const autogen = autogenConfigs(source.autogenStatus);
  for (const [, config] of autogen) rules.push(...rulesOf(config.resourceRules));
  const exact = match.matchPolicy === 'Exact';
  const hasConditions = conditions.length > 0;
  let matchConditions: MatchCondition[] = [];
  if (hasConditions) {
    matchConditions = canAutogen(match) ? guarded('', [POD_TARGET], conditions) : conditions;
    for (const [name, config] of autogen)
      matchConditions.push(...guarded(name, config.targets, kubeCompilable(config.matchConditions)));
    matchConditions = matchConditions.filter((condition) => !readsNamespaceObject(condition.expression));
    if (matchConditions.length > MAX_MATCH_CONDITIONS) matchConditions = [];
  }
  const namespaceSelector = selectorOf(match.namespaceSelector);
  const objectSelector = selectorOf(match.objectSelector);
  return {
    source,
    rules: sortRules(dedupe(rules)),
    matchConditions,
    exact,
    ...(namespaceSelector ? { namespaceSelector } : {}),
    ...(objectSelector ? { objectSelector } : {}),
    fineGrained: hasConditions || exact || source.timeoutSeconds !== undefined || source.namespace !== undefined,
  };
}

/**
 * The mutating twins of ImageValidatingPolicy webhooks (digest mutation): same names under the
 * mutating prefix, rules, selectors and conditions; always `Equivalent` (Kyverno sets Exact on the
 * validating one only) and never reinvoked.
 */
export function imagePolicyMutatingWebhooks(
  policies: Iterable<ValidatingPolicyWebhookSource>,
  options: Omit<ValidatingPolicyWebhookOptions, 'validatingWebhookName' | 'prefix' | 'path'> & {
    readonly mutatingWebhookName: string;
  },
): MutatingWebhook[] {
  return validatingPolicyWebhooks(policies, {
    ...options,
    validatingWebhookName: options.mutatingWebhookName,
    prefix: IMAGE_POLICY_PREFIX,
    path: IMAGE_POLICY_MUTATE_PATH,
  }).map((hook) => ({ ...hook, matchPolicy: 'Equivalent', reinvocationPolicy: 'Never' }));
}

/** Kyverno's prefix and paths of ImageValidatingPolicy webhooks. */
export const IMAGE_POLICY_PREFIX = 'ivpol';
export const IMAGE_POLICY_VALIDATE_PATH = '/ivpol/validate';
export const IMAGE_POLICY_MUTATE_PATH = '/ivpol/mutate';

/** kube-apiserver's variables for a webhook's match conditions (no params). */
const WEBHOOK_CONDITION_VARIABLES = { params: false, authorizer: true } as const;

/** The conditions when every one compiles to bool where kube-apiserver compiles them; none otherwise. */
function kubeCompilable(conditions: MatchCondition[]): MatchCondition[] {
  const compiles = (expression: string) => {
    try {
      compileCel(expression, WEBHOOK_CONDITION_VARIABLES, 'bool');
      return true;
    } catch {
      return false;
    }
  };
  return conditions.every((condition) => compiles(condition.expression)) ? conditions : [];
}

/** Kyverno's CanAutoGen: exactly one rule for core/v1 pods, no selectors, exclusions or names. */
function canAutogen(match: JsonObject): boolean {
  if (selectorOf(match.namespaceSelector) || selectorOf(match.objectSelector)) return false;
  if (Array.isArray(match.excludeResourceRules) && match.excludeResourceRules.length > 0) return false;
  const rules = Array.isArray(match.resourceRules) ? match.resourceRules : [];
  if (rules.length !== 1 || !isObject(rules[0])) return false;
  const rule = rules[0];
  const only = (field: JsonValue | undefined, value: string) =>
    Array.isArray(field) && field.length === 1 && field[0] === value;
  const names = Array.isArray(rule.resourceNames) ? rule.resourceNames.length : 0;
  return names === 0 && only(rule.apiGroups, '') && only(rule.apiVersions, 'v1') && only(rule.resources, 'pods');
}

/** Kyverno's autogen match conditions: each condition applies only to the targets' kinds. */
function guarded(config: string, targets: readonly Target[], conditions: readonly MatchCondition[]): MatchCondition[] {
  const kinds = [
    ...new Set(
      targets.map(
        (t) => `(object.apiVersion == '${t.group ? `${t.group}/` : ''}${t.version}' && object.kind =='${t.kind}')`,
      ),
    ),
  ].sort();
  const prefix = config === '' ? 'autogen' : `autogen-${config}`;
  return conditions.map((condition) => ({
    name: `${prefix}-${condition.name}`,
    expression: `!(${kinds.join(' || ')}) || (${condition.expression})`,
  }));
}

interface AutogenConfig {
  readonly targets: Target[];
  readonly resourceRules: JsonValue | undefined;
  readonly matchConditions: MatchCondition[];
}

function autogenConfigs(status: JsonObject): Array<[string, AutogenConfig]> {
  const configs = isObject(status.configs) ? status.configs : {};
  return Object.keys(configs)
    .sort()
    .flatMap((name): Array<[string, AutogenConfig]> => {
      const config = configs[name];
      if (!isObject(config)) return [];
      const spec = isObject(config.spec) ? config.spec : {};
      const match = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
      const targets = (Array.isArray(config.targets) ? config.targets : []).filter(isObject).map((t) => ({
        group: typeof t.group === 'string' ? t.group : '',
        version: String(t.version ?? ''),
        resource: String(t.resource ?? ''),
        kind: String(t.kind ?? ''),
      }));
      return [
        [
          name,
          { targets, resourceRules: match.resourceRules, matchConditions: matchConditionsOf(spec.matchConditions) },
        ],
      ];
    });
}

function matchConditionsOf(value: JsonValue | undefined): MatchCondition[] {
  return (Array.isArray(value) ? value : [])
    .filter(isObject)
    .filter((c) => typeof c.name === 'string' && typeof c.expression === 'string')
    .map((c) => ({ name: c.name as string, expression: c.expression as string }));
}

const OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];

/** The webhook rules of resourceRules (resourceNames are the policy's to check: webhooks have none). */
function rulesOf(value: JsonValue | undefined): RuleWithOperations[] {
  return (Array.isArray(value) ? value : []).filter(isObject).flatMap((rule): RuleWithOperations[] => {
    const strings = (field: JsonValue | undefined) =>
      (Array.isArray(field) ? field : []).filter((s): s is string => typeof s === 'string');
    const operations = strings(rule.operations).filter((op) => OPERATIONS.includes(op)) as OperationType[];
    const resources = strings(rule.resources);
    if (operations.length === 0 || resources.length === 0) return [];
    const scope = rule.scope === 'Cluster' || rule.scope === 'Namespaced' ? (rule.scope as ScopeType) : '*';
    return [
      {
        apiGroups: strings(rule.apiGroups),
        apiVersions: strings(rule.apiVersions),
        operations,
        resources,
        scope,
      },
    ];
  });
}

function dedupe(rules: RuleWithOperations[]): RuleWithOperations[] {
  const seen = new Set<string>();
  return rules.filter((rule) => {
    const key = JSON.stringify(rule);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Kyverno's order: API groups, versions, resources, operations, scope. */
function sortRules(rules: RuleWithOperations[]): RuleWithOperations[] {
  const list = (values: readonly string[]) => values.join('\u0000');
  return [...rules].sort(
    (a, b) =>
      compare(list(a.apiGroups), list(b.apiGroups)) ||
      compare(list(a.apiVersions), list(b.apiVersions)) ||
      compare(list(a.resources), list(b.resources)) ||
      compare(list(a.operations), list(b.operations)) ||
      compare(a.scope, b.scope),
  );
}

/** A selector that selects something narrower than everything; undefined for none or `{}`. */
function selectorOf(value: JsonValue | undefined): LabelSelector | undefined {
  if (!isObject(value)) return undefined;
  const labels = isObject(value.matchLabels) ? (value.matchLabels as Record<string, string>) : undefined;
  const expressions = Array.isArray(value.matchExpressions) ? value.matchExpressions : [];
  const hasLabels = labels !== undefined && Object.keys(labels).length > 0;
  if (!hasLabels && expressions.length === 0) return undefined;
  return {
    ...(expressions.length > 0
      ? { matchExpressions: expressions as unknown as LabelSelector['matchExpressions'] }
      : {}),
    ...(hasLabels ? { matchLabels: { ...labels } } : {}),
  } as LabelSelector;
}

/** Both selectors' requirements (a selector's requirements all hold: their union is the conjunction). */
function combine(...selectors: Array<LabelSelector | undefined>): LabelSelector {
  const expressions: NonNullable<LabelSelector['matchExpressions']> = [];
  const labels: Record<string, string> = {};
  for (const selector of selectors) {
    if (!selector) continue;
    expressions.push(...(selector.matchExpressions ?? []));
    Object.assign(labels, selector.matchLabels ?? {});
  }
  return {
    ...(expressions.length > 0 ? { matchExpressions: expressions } : {}),
    ...(Object.keys(labels).length > 0 ? { matchLabels: labels } : {}),
  };
}

function ownNamespace(namespace: string): LabelSelector {
  return { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [namespace] }] };
}

/** Whether a CEL expression names the `namespaceObject` variable (not inside a string literal). */
export function readsNamespaceObject(expression: string): boolean {
  const code = expression.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''");
  return /(^|[^A-Za-z0-9_.])namespaceObject\b/.test(code);
}

function keyOf(source: ValidatingPolicyWebhookSource): string {
  return `${source.namespace ?? ''}/${source.name}`;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
