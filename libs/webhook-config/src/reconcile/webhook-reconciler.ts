/**
 * WebhookReconciler: keeps the webhook configurations in line with what they should be
 * (DesiredWebhooks: the policies' for the admission controller, fixed ones for the cleanup
 * controller) and the CA bundle. Leader only (it checks the gate before every pass and every
 * write); idempotent (writes only on drift, updates carry the observed resourceVersion and are
 * retried on conflict).
 *
 * Narrowing guard: while the desired set is incomplete (the policy cache has not synced, or some
 * kind could not be resolved), a pass publishes the union of what is stored and what it computed,
 * so a webhook never loses a rule before the complete policy set is known (Kyverno starts its webhook controller only after
 * its policy informers synced, and keeps policies "not ready" until their kinds are in the
 * webhooks). Once complete, the computed set is published as is, which may narrow it.
 *
 * Triggers (`start()`): changes of the desired set (batched for `debounceMs` from the first, unless
 * it asks for at once), CA bundle changes and becoming leader, batched alike.
 *
 * Publications: after a pass that left every configuration as built, `onPublished` listeners hear
 * the set's publication: which policies (at which generation) the published webhooks carry, and
 * which of their kinds they could not (the policy status writer judges readiness from it).
 */
import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isAlreadyExists, isConflict } from '@edict/kube';
import type { WebhookPublication } from '@edict/policy';
import type { WebhookConfiguration } from '../configurations/types';
import { unionConfiguration } from '../configurations/union';
import type { ResolvedWebhookOptions } from '../webhooks.options';
import {
  WEBHOOK_CA_SOURCE,
  WEBHOOK_CONFIG_STORE,
  WEBHOOK_DESIRED,
  WEBHOOK_LEADER_GATE,
  WEBHOOK_OPTIONS,
} from '../webhooks.constants';
import { covers } from './covers';
import { ALWAYS_LEADER, type LeaderGate } from '@edict/leader';
import type { CaBundleSource, DesiredWebhooks, DesiredWebhookSet, WebhookConfigStore } from './ports';
import { errorMessage } from '@edict/foundation';
import { SerialPass } from '@edict/work-queue';

export type ReconcileOutcome =
  | { readonly status: 'skipped'; readonly reason: 'stopped' | 'not-leader' | 'no-ca-bundle' }
  | {
      readonly status: 'done';
      /** False while the narrowing guard held (the desired set incomplete). */
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
  private readonly passes = new SerialPass(() => this.recordedPass());
  private timer: NodeJS.Timeout | undefined;
  /** Whether the pending timer is for an immediate pass. */
  private immediate = false;
  private stopped = false;
  private last?: { at: Date; outcome?: ReconcileOutcome; error?: string };
  private readonly publicationListeners = new Set<(publication: WebhookPublication) => void>();

  constructor(
    @Inject(WEBHOOK_OPTIONS) private readonly options: ResolvedWebhookOptions,
    @Inject(WEBHOOK_DESIRED) readonly wanted: DesiredWebhooks,
    @Inject(WEBHOOK_CA_SOURCE) private readonly ca: CaBundleSource,
    @Inject(WEBHOOK_CONFIG_STORE) private readonly store: WebhookConfigStore,
    @Optional() @Inject(WEBHOOK_LEADER_GATE) private readonly leader: LeaderGate = ALWAYS_LEADER,
  ) {}

  onModuleInit(): void {
    this.start();
  }

  onModuleDestroy(): void {
    this.stop();
  }

  /** Follows changes of the desired set, the CA and leadership. */
  start(): void {
    if (this.subscriptions.length > 0) return;
    this.stopped = false;
    const trigger = (): void => this.schedule();
    this.subscriptions.push(
      this.wanted.onChange((now) => (now ? this.schedule(0) : this.schedule())),
      this.ca.onChange(trigger),
    );
    const off = this.leader.onStartedLeading?.(trigger);
    if (off) this.subscriptions.push(off);
  }

  /** Stops following changes; later passes are skipped (used before removing everything). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const off of this.subscriptions.splice(0)) off();
  }

  /**
   * A reconcile `delayMs` (by default `debounceMs`) after the first trigger since the last pass, so a
   * burst of changes makes one pass. A pending pass is kept, not pushed back: it reads the state
   * when it runs, so it covers later triggers too, and a steady stream of policy changes (a suite
   * or a GitOps sync applying many in a row) cannot hold back the webhooks a new policy needs. Only
   * a pass asked for at once (a CRD) replaces a pending delayed one.
   */
  schedule(delayMs = this.options.debounceMs): void {
    if (this.stopped || (this.timer && (this.immediate || delayMs > 0))) return;
    if (this.timer) clearTimeout(this.timer);
    this.immediate = delayMs === 0;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.reconcile().catch((error: unknown) => this.logger.warn(`reconcile failed: ${errorMessage(error)}`));
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
  reconcile(): Promise<ReconcileOutcome> {
    return this.passes.run();
  }

  private async recordedPass(): Promise<ReconcileOutcome> {
    try {
      const outcome = await this.pass();
      this.last = { at: new Date(), outcome };
      return outcome;
    } catch (error) {
      this.last = { at: new Date(), error: errorMessage(error) };
      throw error;
    }
  }

  /**
   * The configurations a pass would publish now (before any union with the stored ones), for
   * debugging; undefined while there is no CA bundle. Any replica may call it: nothing is written.
   */
  async desired(): Promise<DesiredWebhookSet | undefined> {
    const ca = this.ca.current();
    if (!ca || ca.caBundlePem.trim() === '') return undefined;
    return this.wanted.build(ca.caBundlePem);
  }

  private async pass(): Promise<ReconcileOutcome> {
    const before = this.interrupted();
    if (before) return { status: 'skipped', reason: before };
    const ca = this.ca.current();
    if (!ca || ca.caBundlePem.trim() === '') return { status: 'skipped', reason: 'no-ca-bundle' };

    const built = await this.wanted.build(ca.caBundlePem);
    const { complete } = built;
    if (!complete) {
      this.logger.debug?.(
        `publishing a union with the stored webhooks: ${built.unresolved.length > 0 ? `unresolved kinds ${built.unresolved.join(', ')}` : 'desired set not complete yet'}`,
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
      // A pass cut short is not "done": callers waiting for publication would see configurations missing.
      const cut = this.interrupted();
      if (cut) return { status: 'skipped', reason: cut };
      const result = await this.apply(desired, complete);
      outcome[result].push(desired.metadata.name);
    }
    const ended = this.interrupted();
    if (ended) return { status: 'skipped', reason: ended };
    if (built.publication) this.publish(built.publication);
    return outcome;
  }

  private interrupted(): 'stopped' | 'not-leader' | undefined {
    if (this.stopped) return 'stopped';
    if (!this.leader.isLeader()) return 'not-leader';
    return undefined;
  }

  private publish(publication: WebhookPublication): void {
    for (const listener of this.publicationListeners) {
      try {
        listener(publication);
      } catch (error) {
        this.logger.warn(`a publication listener failed: ${errorMessage(error)}`);
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
        // Labels and annotations become the desired ones, as Kyverno rebuilds them (a key removed
        // from the ConfigMap's webhookLabels or webhookAnnotations goes); the monitor's heartbeat stays.
        const heartbeat = this.options.names.heartbeatAnnotation;
        const beat = observed.metadata.annotations?.[heartbeat];
        const labels = { ...target.metadata.labels };
        const annotations = { ...target.metadata.annotations, ...(beat !== undefined ? { [heartbeat]: beat } : {}) };
        if (
          covers(target.webhooks, observed.webhooks ?? []) &&
          sameEntries(labels, observed.metadata.labels) &&
          sameEntries(annotations, observed.metadata.annotations)
        ) {
          return 'unchanged';
        }
        await this.store.replace({
          ...target,
          metadata: { ...observed.metadata, labels, annotations, resourceVersion: observed.metadata.resourceVersion },
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

function sameEntries(wanted: Record<string, string>, stored: Record<string, string> | undefined): boolean {
  const entries = Object.entries(stored ?? {});
  return entries.length === Object.keys(wanted).length && entries.every(([key, value]) => wanted[key] === value);
}
