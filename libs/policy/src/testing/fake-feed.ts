/** An in-memory feed with the informer's contract, driven by the test. */
import type { InformerHandlers } from '@edict/kube';
import type { Policy, PolicyException } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { CelPolicyFeeds } from '../cel/cel-policy-feeds';
import type { ObjectFeed, PolicyFeeds } from '../informers/policy-feeds';

type Handlers<T> = { [K in keyof InformerHandlers<T>]: Array<InformerHandlers<T>[K]> };

export class FakeFeed<T> implements ObjectFeed<T> {
  started = false;
  stopped = false;
  private synced = false;
  private readonly handlers: Handlers<T> = { add: [], update: [], delete: [] };
  private readonly waiters: Array<() => void> = [];

  on<K extends keyof InformerHandlers<T>>(event: K, handler: InformerHandlers<T>[K]): () => void {
    (this.handlers[event] as Array<InformerHandlers<T>[K]>).push(handler);
    return () => {
      const list = this.handlers[event] as Array<InformerHandlers<T>[K]>;
      list.splice(list.indexOf(handler), 1);
    };
  }
  start(): void {
    this.started = true;
  }
  async stop(): Promise<void> {
    this.stopped = true;
  }
  hasSynced(): boolean {
    return this.synced;
  }
  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  markSynced(): void {
    this.synced = true;
    for (const resolve of this.waiters.splice(0)) resolve();
  }
  add(object: T): void {
    for (const handler of this.handlers.add) void handler(object);
  }
  update(object: T, previous: T = object): void {
    for (const handler of this.handlers.update) void handler(object, previous);
  }
  delete(object: T): void {
    for (const handler of this.handlers.delete) void handler(object);
  }
}

export interface FakePolicyFeeds extends PolicyFeeds {
  readonly clusterPolicies: FakeFeed<Policy>;
  readonly policies: FakeFeed<Policy>;
  readonly exceptions: FakeFeed<PolicyException>;
  markSynced(): void;
}

export function fakePolicyFeeds(): FakePolicyFeeds {
  const feeds = {
    clusterPolicies: new FakeFeed<Policy>(),
    policies: new FakeFeed<Policy>(),
    exceptions: new FakeFeed<PolicyException>(),
  };
  return { ...feeds, markSynced: () => Object.values(feeds).forEach((feed) => feed.markSynced()) };
}

export interface FakeCelPolicyFeeds extends CelPolicyFeeds {
  readonly validatingPolicies: FakeFeed<KubeObject>;
  readonly namespacedValidatingPolicies: FakeFeed<KubeObject>;
  readonly mutatingPolicies?: FakeFeed<KubeObject>;
  readonly namespacedMutatingPolicies?: FakeFeed<KubeObject>;
  readonly generatingPolicies?: FakeFeed<KubeObject>;
  readonly namespacedGeneratingPolicies?: FakeFeed<KubeObject>;
  readonly exceptions: FakeFeed<KubeObject>;
  markSynced(): void;
}

/** Fake feeds of the validating kinds and exceptions; `mutatingAndGenerating` adds those four kinds'. */
export function fakeCelPolicyFeeds(options: { mutatingAndGenerating?: boolean } = {}): FakeCelPolicyFeeds {
  const feeds = {
    validatingPolicies: new FakeFeed<KubeObject>(),
    namespacedValidatingPolicies: new FakeFeed<KubeObject>(),
    exceptions: new FakeFeed<KubeObject>(),
    ...(options.mutatingAndGenerating
      ? {
          mutatingPolicies: new FakeFeed<KubeObject>(),
          namespacedMutatingPolicies: new FakeFeed<KubeObject>(),
          generatingPolicies: new FakeFeed<KubeObject>(),
          namespacedGeneratingPolicies: new FakeFeed<KubeObject>(),
        }
      : {}),
  };
  return { ...feeds, markSynced: () => Object.values(feeds).forEach((feed) => feed.markSynced()) };
}
