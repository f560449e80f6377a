/**
 * WebhookReconciler: keeps the webhook configurations in line with the installed policies and the
 * CA bundle. Leader only (it checks the gate before every pass and every write); idempotent
 * (writes only on drift, updates carry the observed resourceVersion and are retried on conflict).
 *
 * Narrowing guard: while the policy cache has not synced, or some kind could not be resolved, a
 * pass publishes the union of what is stored and what it computed, so a webhook never loses a
 * rule before the complete policy set is known (Kyverno starts its webhook controller only after
 * its policy informers synced, and keeps policies "not ready" until their kinds are in the
 * webhooks). Once complete, the computed set is published as is, which may narrow it.
 *
 * Triggers (`start()`): policy cache changes, CA bundle changes and becoming leader, debounced;
 * changes of the served types (CRDs) at once, with fresh discovery.
 *
 * Publications: after a pass that left every configuration as built, `onPublished` listeners hear
 * which policies (at which generation) the published webhooks carry, and which of their kinds they
 * could not (the policy status writer judges readiness from it).
 */
import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isAlreadyExists, isConflict } from '@edict/kube';
import { generationOf, type CachedPolicy, type WebhookPublication } from '@edict/policy';
import {
  buildWebhookConfigurations,
  kindSelectorsOf,
  type WebhookBuildResult,
} from '../build/build-webhook-configurations';
import type { WebhookConfiguration } from '../build/types';
import { unionConfiguration } from '../build/union';
import type { ResolvedWebhookOptions } from '../webhooks.options';
import {
  WEBHOOK_CA_SOURCE,
  WEBHOOK_CONFIG_STORE,
  WEBHOOK_DISCOVERY,
  WEBHOOK_LEADER_GATE,
  WEBHOOK_OPTIONS,
  WEBHOOK_POLICY_SOURCE,
  WEBHOOK_SERVED_TYPES,
} from '../webhooks.constants';
import { covers } from './covers';
import type { DiscoverySource } from './discovery-resolver';
import { ALWAYS_LEADER, type LeaderGate } from '@edict/leader';
import type { CaBundleSource, PolicySource, ServedTypesSource, WebhookConfigStore } from './ports';

export type ReconcileOutcome =
  | { readonly status: 'skipped'; readonly reason: 'stopped' | 'not-leader' | 'no-ca-bundle' }
  | {
      readonly status: 'done';
      /** False while the narrowing guard held (cache not synced or kinds unresolved). */
      readonly complete: boolean;
      readonly created: string[];
      readonly updated: string[];
      readonly unchanged: string[];
      readonly unresolved: readonly string[];
    };

const MAX_CONFLICT_RETRIES = 3;

@Injectable()
export class WebhookReconciler implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('WebhookReconciler');
  private readonly subscriptions: Array<() => void> = [];
  private running: Promise<ReconcileOutcome> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Whether the pending timer is for an immediate pass. */
  private immediate = false;
  private stopped = false;
  private last?: { at: Date; outcome?: ReconcileOutcome; error?: string };
  private readonly publicationListeners = new Set<(publication: WebhookPublication) => void>();

  constructor(
    @Inject(WEBHOOK_OPTIONS) private readonly options: ResolvedWebhookOptions,
    @Inject(WEBHOOK_POLICY_SOURCE) private readonly policies: PolicySource,
    @Inject(WEBHOOK_CA_SOURCE) private readonly ca: CaBundleSource,
    @Inject(WEBHOOK_CONFIG_STORE) private readonly store: WebhookConfigStore,
    @Inject(WEBHOOK_DISCOVERY) private readonly discovery: DiscoverySource,
    @Optional() @Inject(WEBHOOK_LEADER_GATE) private readonly leader: LeaderGate = ALWAYS_LEADER,
    @Optional() @Inject(WEBHOOK_SERVED_TYPES) private readonly servedTypes?: ServedTypesSource | null,
  ) {}

  onModuleInit(): void {
    this.start();
  }

  onModuleDestroy(): void {
    this.stop();
  }

  /** Follows policy, CA and leadership changes (debounced). */
  start(): void {
    if (this.subscriptions.length > 0) return;
    this.stopped = false;
    const trigger = (): void => this.schedule();
    this.subscriptions.push(this.policies.onChange(trigger), this.ca.onChange(trigger));
    const off = this.leader.onStartedLeading?.(trigger);
    if (off) this.subscriptions.push(off);
    // Not debounced: resources of a new kind may be created right after its CRD.
    const offTypes = this.servedTypes?.onChange((group) => {
      this.discovery.invalidate(group);
      this.schedule(0);
    });
    if (offTypes) this.subscriptions.push(offTypes);
  }

  /** Stops following changes; later passes are skipped (used before removing everything). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const off of this.subscriptions.splice(0)) off();
  }

  /**
   * A reconcile after `delayMs` (by default `debounceMs`) of quiet. A pending immediate pass is
   * kept (it reads the state when it runs, so it covers later triggers too): a policy change right
   * after a CRD must not hold back the pass the CRD asked for at once.
   */
  schedule(delayMs = this.options.debounceMs): void {
    if (this.stopped || (this.timer && this.immediate)) return;
    if (this.timer) clearTimeout(this.timer);
    this.immediate = delayMs === 0;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.reconcile().catch((error: unknown) => this.logger.warn(`reconcile failed: ${message(error)}`));
    }, delayMs);
    this.timer.unref?.();
  }

  /** Called after each pass that published every configuration; returns its removal. */
  onPublished(listener: (publication: WebhookPublication) => void): () => void {
    this.publicationListeners.add(listener);
    return () => this.publicationListeners.delete(listener);
  }

  /** The last pass: when, what it did or why it failed. */
  lastResult(): { at: Date; outcome?: ReconcileOutcome; error?: string } | undefined {
    return this.last;
  }

  /**
   * One pass. Passes never overlap: a call during a pass waits for it, then runs a fresh one (the
   * state may have changed after the running pass read it); callers waiting together share it.
   */
  async reconcile(): Promise<ReconcileOutcome> {
    while (this.running) {
      const current = this.running;
      await current.catch(() => undefined);
      if (this.running && this.running !== current) return this.running;
    }
    const pass = this.pass();
    this.running = pass;
    try {
      const outcome = await pass;
      this.last = { at: new Date(), outcome };
      return outcome;
    } catch (error) {
      this.last = { at: new Date(), error: message(error) };
      throw error;
    } finally {
      if (this.running === pass) this.running = undefined;
    }
  }

  /**
   * The configurations a pass would publish now (before any union with the stored ones), for
   * debugging; undefined while there is no CA bundle. Any replica may call it: nothing is written.
   */
  async desired(): Promise<WebhookBuildResult | undefined> {
    const ca = this.ca.current();
    if (!ca || ca.caBundlePem.trim() === '') return undefined;
    return this.build(ca.caBundlePem);
  }

  private async build(
    caBundlePem: string,
    policies: readonly CachedPolicy[] = this.policies.policies(),
  ): Promise<WebhookBuildResult> {
    const kinds = kindSelectorsOf(policies);
    const resolve = kinds.length > 0 ? await this.discovery.resolver(kinds) : () => [];
    return buildWebhookConfigurations(policies, {
      endpoint: this.options.endpoint,
      caBundlePem,
      resolve,
      names: this.options.names,
      defaultTimeoutSeconds: this.options.defaultTimeoutSeconds,
      excludedNamespaces: this.options.excludedNamespaces,
      policyValidation: this.options.policyValidation,
      exceptionValidation: this.options.exceptionValidation,
    });
  }

  private async pass(): Promise<ReconcileOutcome> {
    if (this.stopped) return { status: 'skipped', reason: 'stopped' };
    if (!this.leader.isLeader()) return { status: 'skipped', reason: 'not-leader' };
    const ca = this.ca.current();
    if (!ca || ca.caBundlePem.trim() === '') return { status: 'skipped', reason: 'no-ca-bundle' };

    // Read "synced" before the policies: a snapshot taken after syncing is complete.
    const synced = this.policies.hasSynced();
    const policies = this.policies.policies();
    const built = await this.build(ca.caBundlePem, policies);
    const complete = synced && built.complete;
    if (!complete) {
      this.logger.debug?.(
        `publishing a union with the stored webhooks: ${synced ? `unresolved kinds ${built.unresolved.join(', ')}` : 'policy cache not synced'}`,
      );
    }
    const outcome = {
      status: 'done' as const,
      complete,
      created: [] as string[],
      updated: [] as string[],
      unchanged: [] as string[],
      unresolved: built.unresolved,
    };
    const configurations = [...built.validating, ...built.mutating] as WebhookConfiguration[];
    for (const desired of configurations) {
      if (this.stopped || !this.leader.isLeader()) break;
      const result = await this.apply(desired, complete);
      outcome[result].push(desired.metadata.name);
    }
    const applied = outcome.created.length + outcome.updated.length + outcome.unchanged.length;
    if (applied === configurations.length && !this.stopped && this.leader.isLeader()) {
      this.publish(publicationOf(policies, built.unresolved));
    }
    return outcome;
  }

  private publish(publication: WebhookPublication): void {
    for (const listener of this.publicationListeners) {
      try {
        listener(publication);
      } catch (error) {
        this.logger.warn(`a publication listener failed: ${message(error)}`);
      }
    }
  }

  /** Creates or updates one configuration; retries on conflicts with a fresh read. */
  private async apply(desired: WebhookConfiguration, complete: boolean): Promise<'created' | 'updated' | 'unchanged'> {
    for (let attempt = 0; ; attempt++) {
      const observed = await this.store.get<WebhookConfiguration>(desired.kind, desired.metadata.name);
      const target = complete ? desired : unionConfiguration(observed, desired);
      try {
        if (!observed) {
          await this.store.create(target);
          this.logger.log(`created ${desired.kind} ${desired.metadata.name}`);
          return 'created';
        }
        if (
          covers(target.webhooks, observed.webhooks ?? []) &&
          covers(target.metadata.labels, observed.metadata.labels)
        ) {
          return 'unchanged';
        }
        await this.store.replace({
          ...target,
          metadata: {
            ...observed.metadata,
            labels: { ...observed.metadata.labels, ...target.metadata.labels },
            resourceVersion: observed.metadata.resourceVersion,
          },
        });
        this.logger.log(`updated ${desired.kind} ${desired.metadata.name}`);
        return 'updated';
      } catch (error) {
        const retry = isConflict(error) || isAlreadyExists(error);
        if (!retry || attempt >= MAX_CONFLICT_RETRIES) throw error;
      }
    }
  }
}

/** The built policies by key and generation; `unresolved` entries read `policy key: kind selector`. */
function publicationOf(policies: readonly CachedPolicy[], unresolved: readonly string[]): WebhookPublication {
  const unresolvedKinds = new Map<string, string[]>();
  for (const entry of unresolved) {
    const at = entry.indexOf(': '); // keys are DNS names, with `/` for namespaced ones: never `: `
    const key = entry.slice(0, at);
    unresolvedKinds.set(key, [...(unresolvedKinds.get(key) ?? []), entry.slice(at + 2)]);
  }
  return {
    policies: new Map(policies.map((p) => [p.key, generationOf(p.source ?? p.compiled.policy)])),
    unresolvedKinds,
  };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
