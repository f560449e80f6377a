/**
 * Where the cache's objects come from: three feeds with the informer's contract (ordered add/update/
 * delete handlers, synced state). `@edict/kube`'s `Informer` is one; tests may pass any other.
 */
import type { InformerFactory, InformerHandlers } from '@edict/kube';
import type { Policy, PolicyException } from '@edict/engine';
import type { PolicyModuleOptions } from '../policy.options';

export interface ObjectFeed<T> {
  on<K extends keyof InformerHandlers<T>>(event: K, handler: InformerHandlers<T>[K]): () => void;
  start(): void;
  stop(): Promise<void>;
  hasSynced(): boolean;
  waitForSync(timeoutMs?: number): Promise<void>;
}

export interface PolicyFeeds {
  readonly clusterPolicies: ObjectFeed<Policy>;
  readonly policies: ObjectFeed<Policy>;
  readonly exceptions: ObjectFeed<PolicyException>;
}

/** The API versions the cache reads (the CRDs' storage versions). */
export const CLUSTER_POLICY_REF = { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy' } as const;
export const POLICY_REF = { apiVersion: 'kyverno.io/v1', kind: 'Policy' } as const;
export const POLICY_EXCEPTION_REF = { apiVersion: 'kyverno.io/v2', kind: 'PolicyException' } as const;

/** Informers over the API server for ClusterPolicies, Policies and PolicyExceptions (all namespaces). */
export function createPolicyFeeds(factory: InformerFactory, options: PolicyModuleOptions): PolicyFeeds {
  const common = informerSettings(options);
  // The informer's objects are plain JSON; the engine's policy types describe the same shapes.
  return {
    clusterPolicies: factory.create<Policy>({ ...CLUSTER_POLICY_REF, ...common }),
    policies: factory.create<Policy>({ ...POLICY_REF, ...common }),
    exceptions: factory.create<PolicyException>({ ...POLICY_EXCEPTION_REF, ...common }),
  };
}

/** The module's informer settings (resync, watch timeout, retry backoff), shared by every policy feed. */
export function informerSettings(options: PolicyModuleOptions) {
  return {
    ...(options.resyncIntervalMs !== undefined ? { resyncIntervalMs: options.resyncIntervalMs } : {}),
    ...(options.watchTimeoutSeconds !== undefined ? { watchTimeoutSeconds: options.watchTimeoutSeconds } : {}),
    backoff: {
      ...(options.retryInitialMs !== undefined ? { initialMs: options.retryInitialMs } : {}),
      ...(options.retryMaxMs !== undefined ? { maxMs: options.retryMaxMs } : {}),
    },
  };
}
