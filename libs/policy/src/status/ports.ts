/** What the policy status writer needs from the rest of the app, as small interfaces (fakes in tests). */
import type { Policy } from '@edict/engine';
import type { PolicySnapshot } from '../cache/policy-snapshot';
import type { WebhookPublication } from './policy-status';

/** The policy cache (PolicyCache fits). */
export interface StatusPolicySource {
  snapshot(): PolicySnapshot;
  onChange(listener: () => void): () => void;
}

/** The webhook controller's publications (the WebhookReconciler fits). */
export interface WebhookPublicationSource {
  onPublished(listener: (publication: WebhookPublication) => void): () => void;
}

/** Reads a policy and writes its `/status` subresource. */
export interface PolicyStatusStore {
  /** Undefined when it is gone. */
  get(kind: Policy['kind'], name: string, namespace?: string): Promise<Policy | undefined>;
  /** PUT on `/status`; throws a KubeApiError 409 when `metadata.resourceVersion` is stale. */
  replaceStatus(policy: Policy): Promise<Policy>;
}
