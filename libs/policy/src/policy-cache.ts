/**
 * PolicyCache: the admission controller's view of the installed policies and exceptions, fed by
 * informers. Every read goes through an immutable snapshot, so one request sees one consistent set.
 */
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type Policy, type PolicyException } from '@edict/engine';
import { formatDiagnostic, isError, errorMessage } from '@edict/foundation';
import { PolicySnapshot } from './cache/policy-snapshot';
import { PolicyStore, type PolicyStoreSettings } from './cache/policy-store';
import { withFailurePolicyIgnore } from './cache/force-failure-policy-ignore';
import {
  POLICY_RULE_TYPES,
  type CachedException,
  type CachedPolicy,
  type InvalidPolicy,
  type PolicyCacheStats,
  type PolicyQuery,
  type PolicyRuleType,
} from './cache/types';
import type { ObjectFeed, PolicyFeeds } from './informers/policy-feeds';
import { POLICY_FEEDS, POLICY_OPTIONS } from './policy.constants';
import type { PolicyModuleOptions } from './policy.options';

export type PolicyCacheListener = (snapshot: PolicySnapshot) => void;

@Injectable()
export class PolicyCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('PolicyCache');
  private readonly store: PolicyStore;
  private readonly listeners = new Set<PolicyCacheListener>();
  private readonly unsubscribe: Array<() => void> = [];
  private started = false;
  private notifyScheduled = false;
  /** Kyverno's `--forceFailurePolicyIgnore`: every policy taken in as `failurePolicy: Ignore`. */
  readonly forceFailurePolicyIgnore: boolean;

  constructor(
    @Inject(POLICY_OPTIONS) options: PolicyModuleOptions,
    @Inject(POLICY_FEEDS) private readonly feeds: PolicyFeeds,
  ) {
    this.forceFailurePolicyIgnore = options.forceFailurePolicyIgnore === true;
    this.store = new PolicyStore({
      exceptionNamespaces: options.exceptionNamespaces,
      clusterScopedKinds: options.clusterScopedKinds,
    });
  }

  onModuleInit(): void {
    this.start();
  }

  async onModuleDestroy(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    await Promise.all(this.allFeeds().map((feed) => feed.stop()));
  }

  /** Registers the handlers and starts the feeds (once). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.follow(
      this.feeds.clusterPolicies,
      (p) => this.upsertPolicy(p),
      (p) => this.store.removePolicy(p),
    );
    this.follow(
      this.feeds.policies,
      (p) => this.upsertPolicy(p),
      (p) => this.store.removePolicy(p),
    );
    this.follow(
      this.feeds.exceptions,
      (e) => this.upsertException(e),
      (e) => this.store.removeException(e),
    );
    for (const feed of this.allFeeds()) feed.start();
  }

  /** The exception namespaces and cluster-scoped kinds the cache judges by (for mirrors of it). */
  settings(): PolicyStoreSettings {
    return this.store.settings();
  }

  /** The current immutable snapshot; hold it for the whole of one request. */
  snapshot(): PolicySnapshot {
    return this.store.snapshot();
  }

  /** The policies of `query.type` that may apply to the request, in key order (see PolicySnapshot). */
  policiesFor(query: PolicyQuery): readonly CachedPolicy[] {
    return this.snapshot().policiesFor(query);
  }

  /**
   * The namespaces PolicyExceptions are honoured from (wildcards; empty: none). The controller sets
   * them from its flag or ConfigMap; every stored exception is judged again.
   */
  setExceptionNamespaces(patterns: readonly string[]): void {
    this.store.setExceptionNamespaces(patterns);
    this.notify();
  }

  /** The cluster's cluster-scoped custom kinds (`Kind` and `group/version/Kind`), for policy validation. */
  setClusterScopedKinds(kinds: readonly string[]): void {
    this.store.setClusterScopedKinds(kinds);
    this.notify();
  }

  /** The exceptions in force (for the engine's `exceptions` dependency). */
  exceptions(): readonly PolicyException[] {
    return this.snapshot().exceptions;
  }

  /** Valid policies, by key order. */
  policies(): CachedPolicy[] {
    return [...this.snapshot().policies.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Policies kept out of the cache, with their problems (for status and admin endpoints). */
  invalidPolicies(): InvalidPolicy[] {
    return [...this.snapshot().invalid.values()];
  }

  /** Every stored exception, used or not, with its problems. */
  exceptionEntries(): CachedException[] {
    return [...this.snapshot().allExceptions.values()];
  }

  /** True once the three feeds have delivered their first full list. */
  hasSynced(): boolean {
    return this.allFeeds().every((feed) => feed.hasSynced());
  }

  async waitForSync(timeoutMs?: number): Promise<void> {
    await Promise.all(this.allFeeds().map((feed) => feed.waitForSync(timeoutMs)));
  }

  /** Called after every change with the new snapshot; returns its removal. */
  onChange(listener: PolicyCacheListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stats(): PolicyCacheStats {
    const snapshot = this.snapshot();
    const byType = Object.fromEntries(POLICY_RULE_TYPES.map((t) => [t, 0])) as Record<PolicyRuleType, number>;
    let clusterPolicies = 0;
    for (const policy of snapshot.policies.values()) {
      if (policy.kind === 'ClusterPolicy') clusterPolicies += 1;
      for (const type of policy.ruleTypes) byType[type] += 1;
    }
    const exceptions = [...snapshot.allExceptions.values()];
    return {
      generation: snapshot.generation,
      synced: this.hasSynced(),
      policies: snapshot.policies.size,
      clusterPolicies,
      namespacedPolicies: snapshot.policies.size - clusterPolicies,
      invalidPolicies: snapshot.invalid.size,
      exceptions: exceptions.filter((e) => e.used).length,
      ignoredExceptions: exceptions.filter((e) => !e.used).length,
      byType,
    };
  }

  private upsertPolicy(policy: Policy): void {
    const result = this.store.upsertPolicy(this.forceFailurePolicyIgnore ? withFailurePolicyIgnore(policy) : policy);
    if (result.status === 'invalid') {
      const { key, problems, enforced } = result.invalid;
      const errors = problems.filter(isError).map(formatDiagnostic);
      const instead =
        enforced?.basis === 'last-valid'
          ? `its last valid version (resourceVersion ${enforced.policy.resourceVersion ?? 'unknown'}) stays enforced`
          : enforced
            ? 'no valid version is known: its Enforce validate rules are enforced as written'
            : 'it is not used';
      this.logger.warn(`${policy.kind} ${key} is invalid, ${instead}: ${errors.join('; ')}`);
    }
  }

  private upsertException(exception: PolicyException): void {
    const cached = this.store.upsertException(exception);
    if (!cached.used) this.logger.debug?.(`PolicyException ${cached.key} is outside the exception namespaces; ignored`);
  }

  private follow<T>(feed: ObjectFeed<T>, upsert: (object: T) => void, remove: (object: T) => void): void {
    const notify = (): void => this.notify();
    this.unsubscribe.push(
      feed.on('add', (object) => (upsert(object), notify())),
      feed.on('update', (object) => (upsert(object), notify())),
      feed.on('delete', (object) => (remove(object), notify())),
    );
  }

  /** Listeners hear once per burst of events (a relist delivers many), not once per object. */
  private notify(): void {
    if (this.listeners.size === 0 || this.notifyScheduled) return;
    this.notifyScheduled = true;
    setImmediate(() => {
      this.notifyScheduled = false;
      this.deliver();
    });
  }

  private deliver(): void {
    const snapshot = this.snapshot();
    for (const listener of this.listeners) {
      try {
        listener(snapshot);
      } catch (error) {
        this.logger.warn(`a policy cache listener failed: ${errorMessage(error)}`);
      }
    }
  }

  private allFeeds(): ObjectFeed<unknown>[] {
    return [this.feeds.clusterPolicies, this.feeds.policies, this.feeds.exceptions] as ObjectFeed<unknown>[];
  }
}
