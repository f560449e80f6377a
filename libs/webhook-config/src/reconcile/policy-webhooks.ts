/**
 * The admission controller's webhooks: built from the policy cache, kinds resolved through
 * discovery. Incomplete while the cache has not synced or a kind is unresolved (the reconciler then
 * publishes a union with what is stored). Changes: policies (debounced), served types (CRDs, at
 * once and with fresh discovery: resources of a new kind may be created right after its CRD).
 */
import {
  enforcedByGeneratedAdmissionPolicy,
  generationOf,
  policyKeyOf,
  type CachedPolicy,
  type WebhookPublication,
} from '@edict/policy';
import type { ValidatingPolicyWebhookSource } from '../configurations/validating-policy-webhooks';
import { buildWebhookConfigurations, kindSelectorsOf } from '../configurations/build-webhook-configurations';
import type { ResolvedWebhookOptions } from '../webhooks.options';
import type { DiscoverySource, ResourceResolver } from '@edict/kube';
import type {
  CelPolicySource,
  DesiredWebhooks,
  DesiredWebhookSet,
  PolicySource,
  ServedTypesSource,
  WebhookSettingsSource,
} from './ports';

export class PolicyWebhooks implements DesiredWebhooks {
  readonly owned;
  readonly removesLabelled = true;

  constructor(
    private readonly options: ResolvedWebhookOptions,
    private readonly policies: PolicySource,
    private readonly discovery: DiscoverySource,
    private readonly servedTypes?: ServedTypesSource | null,
    private readonly celPolicies?: CelPolicySource | null,
    private readonly settings?: WebhookSettingsSource | null,
  ) {
    const names = options.names;
    this.owned = {
      ValidatingWebhookConfiguration: [
        names.resourceValidating,
        names.policyValidating,
        names.exceptionValidating,
        names.globalContextValidating,
      ],
      MutatingWebhookConfiguration: [names.resourceMutating],
    };
  }

  onChange(listener: (now: boolean) => void): () => void {
    const offPolicies = this.policies.onChange(() => listener(false));
    const offCel = this.celPolicies?.onChange(() => listener(false));
    const offSettings = this.settings?.onChange(() => listener(false));
    const offTypes = this.servedTypes?.onChange((group) => {
      this.discovery.invalidate(group);
      listener(true);
    });
    return () => {
      offPolicies();
      offCel?.();
      offSettings?.();
      offTypes?.();
    };
  }

  async build(caBundlePem: string): Promise<DesiredWebhookSet> {
    // Read "synced" before the policies: a snapshot taken after syncing is complete.
    const synced = this.policies.hasSynced() && (this.celPolicies?.hasSynced() ?? true);
    const allPolicies = this.policies.policies();
    const allValidatingPolicies = this.celPolicies?.validatingPolicies() ?? [];
    const imageValidatingPolicies = this.celPolicies?.imageValidatingPolicies?.() ?? [];
    const allMutatingPolicies = this.celPolicies?.mutatingPolicies?.() ?? [];
    const generatingPolicies = this.celPolicies?.generatingPolicies?.() ?? [];
    // What the API server enforces through a generated admission policy gets no webhook rules (as
    // Kyverno); it still counts as published.
    const policies = allPolicies.filter((p) => !enforcedByGeneratedAdmissionPolicy(p.source ?? {}));
    const validatingPolicies = allValidatingPolicies.filter((p) => !enforcedByGeneratedAdmissionPolicy(p.policy));
    const mutatingPolicies = allMutatingPolicies.filter((p) => !enforcedByGeneratedAdmissionPolicy(p.policy));
    const kinds = kindSelectorsOf(policies);
    let resolve: ResourceResolver = () => [];
    if (kinds.length > 0) resolve = await this.discovery.resolver(kinds);
    // Without policies, discovery is still read (in the background): the first policy's pass then
    // finds it, instead of waiting on a full read before its webhook rules are published.
    else void this.discovery.resolver().catch(() => undefined);
    const settings = this.settings?.current();
    const built = buildWebhookConfigurations(policies, {
      endpoint: this.options.endpoint,
      caBundlePem,
      resolve,
      names: this.options.names,
      defaultTimeoutSeconds: this.options.defaultTimeoutSeconds,
      excludedNamespaces: this.options.excludedNamespaces,
      policyValidation: this.options.policyValidation,
      exceptionValidation: this.options.exceptionValidation,
      globalContextValidation: this.options.globalContextValidation,
      validatingPolicies,
      imageValidatingPolicies,
      mutatingPolicies,
      generatingPolicies,
      ...(settings
        ? {
            webhook: settings.webhook,
            matchConditions: settings.matchConditions,
            annotations: settings.webhookAnnotations,
            labels: settings.webhookLabels,
          }
        : {}),
    });
    return {
      ...built,
      complete: synced && built.complete,
      publication: publicationOf(allPolicies, built.unresolved, [
        ...allValidatingPolicies,
        ...imageValidatingPolicies,
        ...allMutatingPolicies,
        ...generatingPolicies,
      ]),
    };
  }
}

/**
 * The built policies by key and generation; `unresolved` entries read `policy key: kind selector`.
 * CEL policies are keyed `ValidatingPolicy/<name>` and `NamespacedValidatingPolicy/<ns>/<name>` (and
 * the image and mutating kinds alike)
 * (policyKeyOf), which no classic key can be (namespaces are lowercase).
 */
function publicationOf(
  policies: readonly CachedPolicy[],
  unresolved: readonly string[],
  validatingPolicies: ReadonlyArray<Pick<ValidatingPolicyWebhookSource, 'kind' | 'name' | 'namespace' | 'policy'>>,
): WebhookPublication {
  const unresolvedKinds = new Map<string, string[]>();
  for (const entry of unresolved) {
    const at = entry.indexOf(': '); // keys are DNS names, with `/` for namespaced ones: never `: `
    const key = entry.slice(0, at);
    unresolvedKinds.set(key, [...(unresolvedKinds.get(key) ?? []), entry.slice(at + 2)]);
  }
  const celKeys = validatingPolicies.map((p): [string, number | undefined] => {
    const generation = (p.policy as { metadata?: { generation?: unknown } }).metadata?.generation;
    return [policyKeyOf(p.kind, p.name, p.namespace), typeof generation === 'number' ? generation : undefined];
  });
  return {
    policies: new Map([
      ...policies.map((p): [string, number | undefined] => [p.key, generationOf(p.source ?? p.compiled.policy)]),
      ...celKeys,
    ]),
    unresolvedKinds,
  };
}
