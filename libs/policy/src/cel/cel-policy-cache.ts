/**
 * CelPolicyCache: the compiled ValidatingPolicies, ImageValidatingPolicies, MutatingPolicies,
 * GeneratingPolicies and DeletingPolicies (with their Namespaced forms; DeletingPolicies for their
 * status, the cleanup controller runs them) and CEL PolicyExceptions the controllers serve,
 * fed by informers on the policies.kyverno.io kinds. Exceptions are honoured
 * from the same namespaces as classic PolicyExceptions (the PolicyCache's setting, read at each
 * call, so a change of the exception namespaces applies at once). Its sync is its own: a cluster
 * without the policies.kyverno.io CRDs keeps the classic policies served.
 */
import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type {
  CompiledCelPolicyException,
  CompiledDeletingPolicy,
  CompiledGeneratingPolicy,
  CompiledImageValidatingPolicy,
  CompiledMutatingPolicy,
  CompiledValidatingPolicy,
} from '@edict/cel-policies';
import { errorMessage, type KubeObject } from '@edict/foundation';
import type { ObjectFeed } from '../informers/policy-feeds';
import { PolicyCache } from '../policy-cache';
import { CEL_POLICY_COMPILERS_TOKEN, CEL_POLICY_FEEDS } from '../policy.constants';
import type { CelPolicyFeeds } from './cel-policy-feeds';
import {
  CelPolicyStore,
  type CelExceptionEntry,
  type CelPolicyCompilers,
  type CelPolicyEntry,
} from './cel-policy-store';
import type { CelPolicyKind } from './cel-policy-kinds';
import { withFailurePolicyIgnore } from '../cache/force-failure-policy-ignore';

export type CelPolicyCacheListener = () => void;

@Injectable()
export class CelPolicyCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('CelPolicyCache');
  private readonly store: CelPolicyStore;
  private readonly listeners = new Set<CelPolicyCacheListener>();
  private readonly unsubscribe: Array<() => void> = [];
  private started = false;
  private notifyScheduled = false;

  constructor(
    @Inject(CEL_POLICY_FEEDS) private readonly feeds: CelPolicyFeeds,
    private readonly classic: PolicyCache,
    @Optional() @Inject(CEL_POLICY_COMPILERS_TOKEN) compilers?: CelPolicyCompilers,
  ) {
    this.store = new CelPolicyStore(compilers ? { compilers } : {});
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
    for (const [feed, kind] of this.policyFeeds()) {
      this.follow(
        feed,
        (object) => this.upsertPolicy(object, kind),
        (object) => this.store.removePolicy(object, kind),
      );
    }
    this.follow(
      this.feeds.exceptions,
      (object) => this.upsertException(object),
      (object) => this.store.removeException(object),
    );
    for (const feed of this.allFeeds()) feed.start();
  }

  /** The compiled (Ready) ValidatingPolicies and NamespacedValidatingPolicies, by kind, namespace and name. */
  validatingPolicies(): readonly CompiledValidatingPolicy[] {
    return this.store.validatingPolicies();
  }

  /** The compiled (Ready) ImageValidatingPolicies and NamespacedImageValidatingPolicies. */
  imageValidatingPolicies(): readonly CompiledImageValidatingPolicy[] {
    return this.store.imageValidatingPolicies();
  }

  /** The compiled MutatingPolicies and NamespacedMutatingPolicies (for the mutating webhook and mutateExisting). */
  mutatingPolicies(): readonly CompiledMutatingPolicy[] {
    return this.store.mutatingPolicies();
  }

  /** The compiled GeneratingPolicies and NamespacedGeneratingPolicies (for admission and the background controller). */
  generatingPolicies(): readonly CompiledGeneratingPolicy[] {
    return this.store.generatingPolicies();
  }

  /** The compiled DeletingPolicies and NamespacedDeletingPolicies (their status; the cleanup controller runs them). */
  deletingPolicies(): readonly CompiledDeletingPolicy[] {
    return this.store.deletingPolicies();
  }

  /** The compiled CEL PolicyExceptions in force: from the exception namespaces, not expired. */
  policyExceptions(): readonly CompiledCelPolicyException[] {
    return this.store.policyExceptions(this.classic.settings().exceptionNamespaces);
  }

  /** Every stored policy with its compiled form or its errors (for status and admin endpoints). */
  policyEntries(): CelPolicyEntry[] {
    return this.store.policies();
  }

  /** Every stored CEL PolicyException with its compiled form or its errors. */
  exceptionEntries(): CelExceptionEntry[] {
    return this.store.exceptions();
  }

  /** True once the feeds have delivered their first full list. */
  hasSynced(): boolean {
    return this.allFeeds().every((feed) => feed.hasSynced());
  }

  async waitForSync(timeoutMs?: number): Promise<void> {
    await Promise.all(this.allFeeds().map((feed) => feed.waitForSync(timeoutMs)));
  }

  /** Called (once per burst of events) after a change; returns its removal. */
  onChange(listener: CelPolicyCacheListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private upsertPolicy(object: KubeObject, kind: CelPolicyKind): void {
    const taken =
      this.classic.forceFailurePolicyIgnore && hasFailurePolicy(kind) ? withFailurePolicyIgnore(object) : object;
    const entry = this.store.upsertPolicy(taken, kind);
    if (entry.errors.length > 0) {
      this.logger.warn(
        `${kind} ${entry.key} does not compile, it is not served: ` +
          entry.errors.map((e) => `${e.field}: ${e.message}`).join('; '),
      );
    }
  }

  private upsertException(object: KubeObject): void {
    const entry = this.store.upsertException(object);
    if (entry.errors.length > 0) {
      this.logger.warn(
        `PolicyException ${entry.key} does not compile, it is not used: ` +
          entry.errors.map((e) => `${e.field}: ${e.message}`).join('; '),
      );
    }
  }

  private follow(feed: ObjectFeed<KubeObject>, upsert: (o: KubeObject) => void, remove: (o: KubeObject) => void): void {
    const notify = (): void => this.notify();
    this.unsubscribe.push(
      feed.on('add', (object) => (upsert(object), notify())),
      feed.on('update', (object) => (upsert(object), notify())),
      feed.on('delete', (object) => (remove(object), notify())),
    );
  }

  private notify(): void {
    if (this.listeners.size === 0 || this.notifyScheduled) return;
    this.notifyScheduled = true;
    setImmediate(() => {
      this.notifyScheduled = false;
      for (const listener of this.listeners) {
        try {
          listener();
        } catch (error) {
          this.logger.warn(`a CEL policy cache listener failed: ${errorMessage(error)}`);
        }
      }
    });
  }

  private policyFeeds(): Array<[ObjectFeed<KubeObject>, CelPolicyKind]> {
    const feeds: Array<[ObjectFeed<KubeObject> | undefined, CelPolicyKind]> = [
      [this.feeds.validatingPolicies, 'ValidatingPolicy'],
      [this.feeds.namespacedValidatingPolicies, 'NamespacedValidatingPolicy'],
      [this.feeds.imageValidatingPolicies, 'ImageValidatingPolicy'],
      [this.feeds.namespacedImageValidatingPolicies, 'NamespacedImageValidatingPolicy'],
      [this.feeds.mutatingPolicies, 'MutatingPolicy'],
      [this.feeds.namespacedMutatingPolicies, 'NamespacedMutatingPolicy'],
      [this.feeds.generatingPolicies, 'GeneratingPolicy'],
      [this.feeds.namespacedGeneratingPolicies, 'NamespacedGeneratingPolicy'],
      [this.feeds.deletingPolicies, 'DeletingPolicy'],
      [this.feeds.namespacedDeletingPolicies, 'NamespacedDeletingPolicy'],
    ];
    return feeds.filter((pair): pair is [ObjectFeed<KubeObject>, CelPolicyKind] => pair[0] !== undefined);
  }

  private allFeeds(): ObjectFeed<KubeObject>[] {
    return [...this.policyFeeds().map(([feed]) => feed), this.feeds.exceptions];
  }
}

/** The CEL kinds with a `spec.failurePolicy` (GeneratingPolicies' webhooks are Ignore anyway; DeletingPolicies have none). */
function hasFailurePolicy(kind: CelPolicyKind): boolean {
  return !kind.endsWith('GeneratingPolicy') && !kind.endsWith('DeletingPolicy');
}
