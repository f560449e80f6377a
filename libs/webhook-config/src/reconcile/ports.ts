/** What the reconciler needs from the rest of the app, as small interfaces (fakes in tests). */
import type { CachedPolicy, WebhookPublication } from '@edict/policy';
import type { WebhookBuildResult } from '../configurations/build-webhook-configurations';
import type { WebhookConfiguration, WebhookConfigurationKind } from '../configurations/types';
import type { ValidatingPolicyWebhookSource } from '../configurations/validating-policy-webhooks';
import type { MutatingPolicyWebhookSource } from '../configurations/mutating-policy-webhooks';
import type { GeneratingPolicyWebhookSource } from '../configurations/generating-policy-webhooks';
import type { MatchCondition } from '../configurations/types';
import type { LabelSelector } from '@edict/foundation';

/**
 * What one webhook controller publishes: the admission controller's configurations follow its
 * policies (PolicyWebhooks), the cleanup controller's are fixed (FixedWebhooks).
 */
export interface DesiredWebhooks {
  /** The configurations to publish now, trusting `caBundlePem`. */
  build(caBundlePem: string): Promise<DesiredWebhookSet>;
  /** Calls `listener` when what `build` returns may have changed (`now`: no debounce); returns its removal. */
  onChange(listener: (now: boolean) => void): () => void;
  /** The configurations this controller owns, the first validating one carrying the monitor's heartbeat. */
  readonly owned: Readonly<Record<WebhookConfigurationKind, readonly string[]>>;
  /** Whether removal also deletes every configuration carrying the managed-by label (leftovers of older names). */
  readonly removesLabelled: boolean;
}

export interface DesiredWebhookSet extends WebhookBuildResult {
  /** Told to `onPublished` listeners once every configuration is published as built. */
  readonly publication?: WebhookPublication;
}

/** The policy cache (PolicyCache fits). */
export interface PolicySource {
  policies(): readonly CachedPolicy[];
  hasSynced(): boolean;
  onChange(listener: () => void): () => void;
}

/** The compiled ValidatingPolicies, ImageValidatingPolicies and MutatingPolicies (CelPolicyCache fits). */
export interface CelPolicySource {
  validatingPolicies(): readonly ValidatingPolicyWebhookSource[];
  imageValidatingPolicies?(): readonly ValidatingPolicyWebhookSource[];
  mutatingPolicies?(): readonly MutatingPolicyWebhookSource[];
  generatingPolicies?(): readonly GeneratingPolicyWebhookSource[];
  hasSynced(): boolean;
  onChange(listener: () => void): () => void;
}

/** What the Kyverno-format ConfigMap says about the webhook configurations (AdmissionConfig fits). */
export interface WebhookSettings {
  /** `webhooks`: the resource webhooks' namespace and object selectors. */
  readonly webhook: { readonly namespaceSelector?: LabelSelector; readonly objectSelector?: LabelSelector };
  readonly matchConditions: readonly MatchCondition[];
  readonly webhookAnnotations: Readonly<Record<string, string>>;
  readonly webhookLabels: Readonly<Record<string, string>>;
}

/** The ConfigMap as loaded now, and its reloads (AdmissionConfigService fits). */
export interface WebhookSettingsSource {
  current(): WebhookSettings;
  onChange(listener: () => void): () => void;
}

/** The CA bundle the API server must trust (TlsMaterial fits). */
export interface CaBundleSource {
  current(): { readonly caBundlePem: string } | undefined;
  onChange(listener: (snapshot: { readonly caBundlePem: string }) => void): () => void;
}

/**
 * Says when the API's served types change (a CustomResourceDefinition added, changed or removed,
 * with its group): kinds are then resolved again, so a policy naming a kind whose CRD comes later
 * gets it covered.
 */
export interface ServedTypesSource {
  onChange(listener: (group: string) => void): () => void;
}

/** Reads and writes webhook configurations (cluster-scoped). */
export interface WebhookConfigStore {
  get<T extends WebhookConfiguration>(kind: T['kind'], name: string): Promise<T | undefined>;
  /** Throws a KubeApiError 409 when it exists. */
  create<T extends WebhookConfiguration>(object: T): Promise<T>;
  /** Throws a KubeApiError 409 when `metadata.resourceVersion` is stale. */
  replace<T extends WebhookConfiguration>(object: T): Promise<T>;
  /** Merges annotations into the object's metadata. */
  annotate(kind: WebhookConfigurationKind, name: string, annotations: Record<string, string>): Promise<void>;
  /** Names of the configurations carrying `labelSelector`. */
  listNames(kind: WebhookConfigurationKind, labelSelector: string): Promise<string[]>;
  /** Resolves false when it was already gone. */
  delete(kind: WebhookConfigurationKind, name: string): Promise<boolean>;
}
