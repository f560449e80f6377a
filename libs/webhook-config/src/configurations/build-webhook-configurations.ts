/**
 * The pure builder: installed policies in, Validating/MutatingWebhookConfigurations out.
 *
 * Per family (validating, mutating) there is a `-fail` and an `-ignore` webhook, each carrying only
 * the kinds and operations the policies with that failure policy need (empty webhooks are left
 * out, the configuration itself always exists). Kinds become resources through the resolver
 * (discovery); a wildcard kind becomes a `*` resource with the policy's scope. Timeouts start at the
 * default and rise to the largest `webhookTimeoutSeconds` of the webhook's policies, capped at 30.
 */
import type { CachedPolicy } from '@edict/policy';
import { webhookTimeoutSecondsOf } from '@edict/engine';
import { parseKind, type LabelSelector } from '@edict/foundation';
import {
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_WEBHOOK_NAMES,
  MAX_TIMEOUT_SECONDS,
  WEBHOOK_PATHS,
  type WebhookNames,
} from './names';
import { generatingPolicyWebhooks, type GeneratingPolicyWebhookSource } from './generating-policy-webhooks';
import { kindOperationsOf, policyTakesPart, type WebhookFamily } from './policy-kinds';
import { RuleSet } from './rule-set';
import { mutatingPolicyWebhooks, type MutatingPolicyWebhookSource } from './mutating-policy-webhooks';
import {
  IMAGE_POLICY_PREFIX,
  IMAGE_POLICY_VALIDATE_PATH,
  imagePolicyMutatingWebhooks,
  readsNamespaceObject,
  validatingPolicyWebhooks,
  type ValidatingPolicyWebhookSource,
} from './validating-policy-webhooks';
import type {
  MatchCondition,
  MutatingWebhook,
  MutatingWebhookConfiguration,
  ScopeType,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
  WebhookClientConfig,
  WebhookConfigurations,
  WebhookFailurePolicy,
} from './types';
import { type ResourceResolver } from '@edict/kube';

/** Kyverno marks its configurations so that GKE Autopilot's admission enforcer leaves them alone. */
export const CONFIGURATION_ANNOTATIONS: Readonly<Record<string, string>> = { 'admissions.enforcer/disabled': 'true' };

/** Where the API server reaches the admission controller: a Service, or a URL base (local mode). */
export type WebhookEndpoint =
  | { readonly service: { readonly name: string; readonly namespace: string; readonly port: number } }
  | { readonly url: string };

export interface WebhookBuildOptions {
  readonly endpoint: WebhookEndpoint;
  /** PEM CA bundle the API server trusts for the endpoint (base64-encoded into caBundle). */
  readonly caBundlePem: string;
  /** Kinds → resources; usually a table filled from discovery beforehand. */
  readonly resolve: ResourceResolver;
  readonly names?: Partial<WebhookNames>;
  readonly defaultTimeoutSeconds?: number;
  /** Namespaces the resource webhooks never see (the controller's own, kube-system, ...). */
  readonly excludedNamespaces?: readonly string[];
  /**
   * The ConfigMap's `webhooks` key: its namespaceSelector joins the excluded namespaces' on the
   * resource webhooks, its objectSelector is theirs (Kyverno's GetWebhook).
   */
  readonly webhook?: { readonly namespaceSelector?: LabelSelector; readonly objectSelector?: LabelSelector };
  /** The ConfigMap's `matchConditions`: on the resource webhooks not fine-grained for a policy. */
  readonly matchConditions?: readonly MatchCondition[];
  /** Annotations of every configuration (the ConfigMap's `webhookAnnotations`; default: Kyverno chart's). */
  readonly annotations?: Readonly<Record<string, string>>;
  /** Also publish the policy / exception validation webhooks (default true). */
  readonly policyValidation?: boolean;
  readonly exceptionValidation?: boolean;
  /** Also publish the GlobalContextEntry validation webhook (default true). */
  readonly globalContextValidation?: boolean;
  /** Extra labels for every configuration, the ConfigMap's `webhookLabels` (the managed-by label always wins). */
  readonly labels?: Readonly<Record<string, string>>;
  /** The compiled ValidatingPolicies: their `vpol` webhooks join the resource validating configuration. */
  readonly validatingPolicies?: Iterable<ValidatingPolicyWebhookSource>;
  /**
   * The compiled ImageValidatingPolicies: their `ivpol` webhooks join the resource validating
   * configuration, and their digest-mutating twins the resource mutating one.
   */
  readonly imageValidatingPolicies?: Iterable<ValidatingPolicyWebhookSource>;
  /** The compiled MutatingPolicies: their `mpol` webhooks join the resource mutating configuration. */
  readonly mutatingPolicies?: Iterable<MutatingPolicyWebhookSource>;
  /** The GeneratingPolicies (`gpol.` webhooks at `/gpol/...`). */
  readonly generatingPolicies?: Iterable<GeneratingPolicyWebhookSource>;
}

export interface WebhookBuildResult extends WebhookConfigurations {
  /** False when some kind could not be resolved: the rules may be narrower than needed. */
  readonly complete: boolean;
  /** `policy key: kind selector` for each kind the resolver did not know. */
  readonly unresolved: readonly string[];
}

interface Accumulator {
  readonly rules: RuleSet;
  timeout: number;
}

/** A policy's own webhook: `spec.webhookConfiguration.matchConditions` set (Kyverno's fine-grained webhook). */
interface FineGrained extends Accumulator {
  /** `<name>` or `<namespace>` and `<name>`, joined by `-` in the webhook name and `/` in its path. */
  readonly key: readonly string[];
  readonly matchConditions: MatchCondition[];
}

/** Kyverno's FineGrainedWebhookPath. */
export const FINE_GRAINED_PATH = '/finegrained';

export function buildWebhookConfigurations(
  policies: Iterable<CachedPolicy>,
  options: WebhookBuildOptions,
): WebhookBuildResult {
  const names = { ...DEFAULT_WEBHOOK_NAMES, ...options.names };
  const defaultTimeout = options.defaultTimeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const unresolved: string[] = [];
  const acc = {
    validating: { Fail: fresh(defaultTimeout), Ignore: fresh(defaultTimeout) },
    mutating: { Fail: fresh(defaultTimeout), Ignore: fresh(defaultTimeout) },
  };
  const fineGrained = {
    validating: { Fail: [] as FineGrained[], Ignore: [] as FineGrained[] },
    mutating: { Fail: [] as FineGrained[], Ignore: [] as FineGrained[] },
  };
  for (const policy of policies) {
    const conditions = policyMatchConditions(policy);
    for (const family of ['validating', 'mutating'] as const) {
      if (!policyTakesPart(policy, family)) continue;
      let target: Accumulator = acc[family][policy.failurePolicy];
      if (conditions) {
        const key = policy.namespace !== undefined ? [policy.namespace, policy.name] : [policy.name];
        const own: FineGrained = { ...fresh(defaultTimeout), key, matchConditions: conditions };
        fineGrained[family][policy.failurePolicy].push(own);
        target = own;
      }
      addPolicy(target, policy, family, options.resolve, unresolved);
      const timeout = webhookTimeoutSecondsOf(policy.compiled.policy);
      if (typeof timeout === 'number' && timeout > target.timeout) target.timeout = timeout;
    }
  }

  const caBundle = Buffer.from(options.caBundlePem, 'utf8').toString('base64');
  const client = (path: string): WebhookClientConfig => clientConfig(options.endpoint, caBundle, path);
  const namespaceSelector = joinSelectors(
    options.webhook?.namespaceSelector,
    excludeNamespaces(options.excludedNamespaces ?? []),
  );
  const objectSelector = options.webhook?.objectSelector ?? {};
  const configConditions = [...(options.matchConditions ?? [])];
  const labels = { ...options.labels, [names.managedByLabel]: names.managedBy };
  const annotations = { ...(options.annotations ?? CONFIGURATION_ANNOTATIONS) };

  const resourceWebhook = (
    family: WebhookFamily,
    failurePolicy: WebhookFailurePolicy,
    { rules, timeout }: Accumulator,
    own?: FineGrained,
  ): ValidatingWebhook | undefined => {
    if (rules.size === 0) return undefined;
    const suffix = failurePolicy === 'Fail' ? 'fail' : 'ignore';
    const base = family === 'validating' ? names.validatingWebhook : names.mutatingWebhook;
    const path = family === 'validating' ? WEBHOOK_PATHS.validate : WEBHOOK_PATHS.mutate;
    const conditions = own ? own.matchConditions : configConditions;
    return {
      admissionReviewVersions: ['v1'],
      clientConfig: client(
        `${path}/${suffix}${own ? `${FINE_GRAINED_PATH}/${own.key.map(encodeURIComponent).join('/')}` : ''}`,
      ),
      failurePolicy,
      ...(conditions.length > 0 ? { matchConditions: conditions.map((c) => ({ ...c })) } : {}),
      matchPolicy: 'Equivalent',
      name: `${base}-${suffix}${own ? `-finegrained-${own.key.join('-')}` : ''}`,
      namespaceSelector,
      objectSelector,
      rules: rules.toRules(),
      sideEffects: 'NoneOnDryRun',
      timeoutSeconds: Math.min(timeout, MAX_TIMEOUT_SECONDS),
    };
  };
  // Kyverno lists the ignore webhook first, then the fail one, then the fine-grained ignore and fail ones.
  const familyHooks = (family: WebhookFamily): ValidatingWebhook[] =>
    [
      resourceWebhook(family, 'Ignore', acc[family].Ignore),
      resourceWebhook(family, 'Fail', acc[family].Fail),
      ...fineGrained[family].Ignore.map((own) => resourceWebhook(family, 'Ignore', own, own)),
      ...fineGrained[family].Fail.map((own) => resourceWebhook(family, 'Fail', own, own)),
    ].filter((hook): hook is ValidatingWebhook => !!hook);
  const validatingHooks = familyHooks('validating');
  const celHookOptions = {
    client,
    defaultTimeoutSeconds: defaultTimeout,
    // Kyverno's CEL policy webhooks carry one NotIn expression per excluded namespace.
    namespaceSelector: excludeNamespacesOneByOne(options.excludedNamespaces ?? []),
    objectSelector,
  };
  const imagePolicies = [...(options.imageValidatingPolicies ?? [])];
  validatingHooks.push(
    ...validatingPolicyWebhooks(options.validatingPolicies ?? [], {
      ...celHookOptions,
      validatingWebhookName: names.validatingWebhook,
    }),
    ...validatingPolicyWebhooks(imagePolicies, {
      ...celHookOptions,
      validatingWebhookName: names.validatingWebhook,
      prefix: IMAGE_POLICY_PREFIX,
      path: IMAGE_POLICY_VALIDATE_PATH,
    }),
    ...generatingPolicyWebhooks(options.generatingPolicies ?? [], {
      ...celHookOptions,
      validatingWebhookName: names.validatingWebhook,
    }),
  );
  const mutatingHooks = familyHooks('mutating').map((hook): MutatingWebhook => ({
    ...hook,
    reinvocationPolicy: 'IfNeeded',
  }));
  mutatingHooks.push(
    ...mutatingPolicyWebhooks(options.mutatingPolicies ?? [], {
      ...celHookOptions,
      validatingWebhookName: names.validatingWebhook,
    }),
    ...imagePolicyMutatingWebhooks(imagePolicies, { ...celHookOptions, mutatingWebhookName: names.mutatingWebhook }),
  );

  const validating: ValidatingWebhookConfiguration[] = [
    validatingConfiguration(names.resourceValidating, labels, validatingHooks, annotations),
  ];
  const policyHook = (
    name: string,
    path: string,
    rules: readonly FixedWebhookRule[],
    matchConditions: readonly MatchCondition[] = [],
  ): ValidatingWebhook =>
    fixedValidatingWebhook({
      name,
      client: client(path),
      rules,
      failurePolicy: 'Fail',
      timeoutSeconds: defaultTimeout,
      matchConditions,
    });
  if (options.policyValidation !== false) {
    validating.push(
      validatingConfiguration(
        names.policyValidating,
        labels,
        [
          policyHook(names.policyValidatingWebhook, WEBHOOK_PATHS.policyValidate, [
            { apiGroups: ['kyverno.io'], resources: ['clusterpolicies', 'policies'], versions: ['v1', 'v2beta1'] },
            {
              apiGroups: ['policies.kyverno.io'],
              resources: [
                'validatingpolicies',
                'namespacedvalidatingpolicies',
                'imagevalidatingpolicies',
                'namespacedimagevalidatingpolicies',
                'mutatingpolicies',
                'namespacedmutatingpolicies',
                'generatingpolicies',
                'namespacedgeneratingpolicies',
                'deletingpolicies',
                'namespaceddeletingpolicies',
              ],
              versions: ['v1', 'v1beta1', 'v1alpha1'],
            },
          ]),
        ],
        annotations,
      ),
    );
  }
  if (options.exceptionValidation !== false) {
    validating.push(
      validatingConfiguration(
        names.exceptionValidating,
        labels,
        [
          policyHook(
            names.exceptionValidatingWebhook,
            WEBHOOK_PATHS.exceptionValidate,
            [
              { apiGroups: ['kyverno.io'], resources: ['policyexceptions'], versions: ['v2', 'v2beta1'] },
              {
                apiGroups: ['policies.kyverno.io'],
                resources: ['policyexceptions'],
                versions: ['v1', 'v1beta1', 'v1alpha1'],
              },
              // Kyverno's exception webhook is a generic webhook controller's: it carries the ConfigMap's conditions.
            ],
            configConditions,
          ),
        ],
        annotations,
      ),
    );
  }
  if (options.globalContextValidation !== false) {
    // Kyverno's generic webhook controller: CREATE and UPDATE of GlobalContextEntries, Fail, the ConfigMap's conditions.
    validating.push(
      validatingConfiguration(
        names.globalContextValidating,
        labels,
        [
          policyHook(
            names.globalContextValidatingWebhook,
            WEBHOOK_PATHS.globalContextValidate,
            [
              {
                apiGroups: ['kyverno.io'],
                resources: ['globalcontextentries'],
                versions: ['v2alpha1', 'v2beta1', 'v2'],
              },
            ],
            configConditions,
          ),
        ],
        annotations,
      ),
    );
  }
  const mutating: MutatingWebhookConfiguration[] = [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: names.resourceMutating, labels: { ...labels }, annotations: { ...annotations } },
      webhooks: mutatingHooks,
    },
  ];
  return { validating, mutating, complete: unresolved.length === 0, unresolved };
}

/** Every kind selector the policies name (non-wildcard kinds): what the resolver must know. */
export function kindSelectorsOf(policies: Iterable<CachedPolicy>): string[] {
  const kinds = new Set<string>();
  for (const policy of policies)
    for (const family of ['validating', 'mutating'] as const)
      if (policyTakesPart(policy, family)) for (const kind of kindOperationsOf(policy, family).keys()) kinds.add(kind);
  return [...kinds].sort();
}

function fresh(timeout: number): Accumulator {
  return { rules: new RuleSet(), timeout };
}

function addPolicy(
  target: Accumulator,
  policy: CachedPolicy,
  family: WebhookFamily,
  resolve: ResourceResolver,
  unresolved: string[],
): void {
  const policyScope: ScopeType = policy.namespace !== undefined ? 'Namespaced' : '*';
  for (const [selector, ops] of kindOperationsOf(policy, family)) {
    if (ops.size === 0) continue;
    const parsed = parseKind(selector);
    if (parsed.kind === '') continue; // selects nothing
    const subresource = parsed.subresource ?? '';
    if (parsed.kind === '*') {
      target.rules.add(
        { group: parsed.group, version: parsed.version, resource: '*', subresource, scope: policyScope },
        ops,
      );
      continue;
    }
    const resolved = resolve({ group: parsed.group, version: parsed.version, kind: parsed.kind, subresource });
    if (!resolved) {
      unresolved.push(`${policy.key}: ${selector}`);
      continue;
    }
    if (resolved.length === 0 && subresource === '' && !/[*?]/.test(parsed.kind)) {
      // A kind nothing serves yet (its CRD not installed): its resources can be created the moment the
      // CRD appears, before a reconcile that sees it has run. A rule for its conventional plural closes
      // that window; the engine still matches by kind, and the next reconcile writes the exact rule.
      target.rules.add(
        {
          group: parsed.group,
          version: parsed.version,
          resource: conventionalPlural(parsed.kind),
          subresource,
          scope: policyScope,
        },
        ops,
      );
      continue;
    }
    for (const r of resolved) {
      const scope: ScopeType = r.namespaced ? 'Namespaced' : '*';
      target.rules.add(
        { group: r.group, version: r.version, resource: r.resource, subresource: r.subresource, scope },
        ops,
      );
    }
  }
}

/** The plural a CRD of this kind conventionally has (kubebuilder's rules): `widget` -> `widgets`, `policy` -> `policies`. */
export function conventionalPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** The types a fixed webhook sees created and updated. */
export interface FixedWebhookRule {
  readonly apiGroups: readonly string[];
  readonly versions: readonly string[];
  readonly resources: readonly string[];
}

/** A webhook with fixed rules (CREATE and UPDATE of `rules`), every namespace and object. */
export function fixedValidatingWebhook(hook: {
  readonly name: string;
  readonly client: WebhookClientConfig;
  readonly rules: readonly FixedWebhookRule[];
  readonly failurePolicy: WebhookFailurePolicy;
  readonly timeoutSeconds: number;
  /** The ConfigMap's `matchConditions` (Kyverno's generic webhook controllers carry them). */
  readonly matchConditions?: readonly MatchCondition[];
}): ValidatingWebhook {
  return {
    admissionReviewVersions: ['v1'],
    clientConfig: hook.client,
    failurePolicy: hook.failurePolicy,
    ...(hook.matchConditions?.length ? { matchConditions: hook.matchConditions.map((c) => ({ ...c })) } : {}),
    matchPolicy: 'Equivalent',
    name: hook.name,
    namespaceSelector: {},
    objectSelector: {},
    rules: hook.rules.map(({ apiGroups, versions, resources }) => ({
      apiGroups: [...apiGroups],
      apiVersions: [...versions],
      resources: [...resources],
      scope: '*' as const,
      operations: ['CREATE' as const, 'UPDATE' as const],
    })),
    sideEffects: 'None',
    timeoutSeconds: Math.min(hook.timeoutSeconds, MAX_TIMEOUT_SECONDS),
  };
}

/** Where the API server calls `path`: through the Service, or under the URL base; trusting the base64 `caBundle`. */
export function clientConfig(endpoint: WebhookEndpoint, caBundle: string, path: string): WebhookClientConfig {
  if ('url' in endpoint) return { caBundle, url: `${endpoint.url.replace(/\/+$/, '')}${path}` };
  const { name, namespace, port } = endpoint.service;
  return { caBundle, service: { name, namespace, path, port } };
}

function excludeNamespacesOneByOne(namespaces: readonly string[]): LabelSelector {
  const values = [...new Set(namespaces)].sort();
  if (values.length === 0) return {};
  return {
    matchExpressions: values.map((value) => ({
      key: 'kubernetes.io/metadata.name',
      operator: 'NotIn' as const,
      values: [value],
    })),
  };
}

function excludeNamespaces(namespaces: readonly string[]): LabelSelector {
  const values = [...new Set(namespaces)].sort();
  if (values.length === 0) return {};
  return { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values }] };
}

export function validatingConfiguration(
  name: string,
  labels: Record<string, string>,
  webhooks: ValidatingWebhook[],
  annotations: Readonly<Record<string, string>> = CONFIGURATION_ANNOTATIONS,
): ValidatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name, labels: { ...labels }, annotations: { ...annotations } },
    webhooks,
  };
}

/** Both selectors at once: labels of the first, the expressions of both. */
function joinSelectors(configured: LabelSelector | undefined, excluded: LabelSelector): LabelSelector {
  if (!configured) return excluded;
  const expressions = [...(configured.matchExpressions ?? []), ...(excluded.matchExpressions ?? [])];
  return {
    ...(configured.matchLabels ? { matchLabels: { ...configured.matchLabels } } : {}),
    ...(expressions.length > 0 ? { matchExpressions: expressions } : {}),
  };
}

/**
 * A classic policy's own `spec.webhookConfiguration.matchConditions`, when it sets any: its webhooks
 * are then fine-grained and carry these (those reading `namespaceObject`, which the API server binds
 * to null for webhooks, are left to Edict's own check). Undefined otherwise.
 */
function policyMatchConditions(policy: CachedPolicy): MatchCondition[] | undefined {
  const configured = policy.compiled.policy.spec.webhookConfiguration?.['matchConditions'];
  if (!Array.isArray(configured) || configured.length === 0) return undefined;
  const conditions: MatchCondition[] = [];
  for (const entry of configured as unknown[]) {
    const { name, expression } = (entry ?? {}) as Partial<MatchCondition>;
    if (typeof name === 'string' && typeof expression === 'string' && !readsNamespaceObject(expression))
      conditions.push({ name, expression });
  }
  return conditions;
}
