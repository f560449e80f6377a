/**
 * CelPolicyStatusWriter: writes the status of each CEL policy the cache holds (validating, image
 * validating, mutating, generating, and their Namespaced forms) as Kyverno does (cel-policy-status.ts) through `/status`, on the leader only (checked before every
 * pass and every write). Idempotent: the desired status is compared with the stored one and only a
 * difference is written, with the observed resourceVersion; a conflict is retried on a fresh read.
 * Two leaders in turn (leader election does not fence) converge on the same status.
 *
 * WebhookConfigured follows the webhook controller's publications (the writer waits for the first
 * one of its term, so a new leader never marks policies unconfigured before its own pass). Triggers:
 * CEL cache changes and publications, debounced; no polling (`StatusPasses`, shared with the classic
 * policy status writer).
 */
import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { errorMessage, type KubeObject } from '@edict/foundation';
import { isConflict } from '@edict/kube';
import type { LeaderGate } from '@edict/leader';
import type { WebhookPublication } from '../status/policy-status';
import type { WebhookPublicationSource } from '../status/ports';
import { StatusPasses, statusWriterOptions, type StatusWriterOptions } from '../status/status-passes';
import { celStatusConditions, celStatusMatches, desiredCelPolicyStatus } from './cel-policy-status';
import type { CelPolicyEntry } from './cel-policy-store';

/** The CEL policy cache (CelPolicyCache fits). */
export interface CelStatusPolicySource {
  policyEntries(): readonly CelPolicyEntry[];
  onChange(listener: () => void): () => void;
}

/** Reads a CEL policy and writes its `/status` subresource. */
export interface CelPolicyStatusStore {
  get(kind: CelPolicyEntry['kind'], name: string, namespace?: string): Promise<KubeObject | undefined>;
  /** PUT on `/status`; throws a KubeApiError 409 when `metadata.resourceVersion` is stale. */
  replaceStatus(object: KubeObject): Promise<KubeObject>;
}

/** The permissions the reports controller lacks to scan a policy's resources (none: all granted). */
export interface ReportingPermissions {
  missing(entry: CelPolicyEntry): Promise<readonly string[]>;
}

export interface CelPolicyStatusWriterDeps {
  readonly policies: CelStatusPolicySource;
  readonly publications: WebhookPublicationSource;
  readonly store: CelPolicyStatusStore;
  readonly leader: LeaderGate;
  readonly permissions?: ReportingPermissions;
}

export type CelPolicyStatusWriterOptions = StatusWriterOptions;

export type CelStatusPassOutcome =
  | { readonly status: 'skipped'; readonly reason: 'stopped' | 'not-leader' | 'not-published' }
  | {
      readonly status: 'done';
      readonly written: string[];
      readonly unchanged: number;
      readonly stale: string[];
      readonly failed: string[];
    };

export class CelPolicyStatusWriter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('CelPolicyStatusWriter');
  private readonly retryMs: number;
  private readonly maxConflictRetries: number;
  private readonly now: () => Date;
  private readonly passes: StatusPasses<CelStatusPassOutcome>;

  constructor(
    private readonly deps: CelPolicyStatusWriterDeps,
    options: CelPolicyStatusWriterOptions = {},
  ) {
    const resolved = statusWriterOptions('CelPolicyStatusWriter', options);
    this.retryMs = resolved.retryMs;
    this.maxConflictRetries = resolved.maxConflictRetries;
    this.now = resolved.now;
    this.passes = new StatusPasses(
      {
        onChange: (listener) => deps.policies.onChange(listener),
        publications: deps.publications,
        leader: deps.leader,
      },
      resolved.debounceMs,
      () => this.pass(),
      this.logger,
      'CEL policy status',
      () => this.sync(),
    );
  }

  onModuleInit(): void {
    this.start();
  }

  onModuleDestroy(): void {
    this.stop();
  }

  start(): void {
    this.passes.start();
  }

  stop(): void {
    this.passes.stop();
  }

  /** A pass `delayMs` (default: the debounce) from now, unless one is due sooner. */
  schedule(delayMs?: number): void {
    this.passes.schedule(delayMs);
  }

  /** One pass over every cached CEL policy; passes never overlap. */
  sync(): Promise<CelStatusPassOutcome> {
    return this.passes.sync();
  }

  private async pass(): Promise<CelStatusPassOutcome> {
    if (this.passes.stopped) return { status: 'skipped', reason: 'stopped' };
    if (!this.deps.leader.isLeader()) return { status: 'skipped', reason: 'not-leader' };
    const publication = this.passes.lastPublication();
    if (!publication) return { status: 'skipped', reason: 'not-published' };
    const outcome = {
      status: 'done' as const,
      written: [] as string[],
      unchanged: 0,
      stale: [] as string[],
      failed: [] as string[],
    };
    for (const entry of this.deps.policies.policyEntries()) {
      if (this.passes.stopped) break;
      try {
        const result = await this.write(entry, publication);
        if (result === 'not-leader') return { status: 'skipped', reason: 'not-leader' };
        if (result === 'written') outcome.written.push(entry.key);
        else if (result === 'stale') outcome.stale.push(entry.key);
        else outcome.unchanged += 1;
      } catch (error) {
        outcome.failed.push(`${entry.key}: ${errorMessage(error)}`);
      }
    }
    if (outcome.written.length > 0) this.logger.log(`CEL policy status written: ${outcome.written.join(', ')}`);
    if (outcome.failed.length > 0) {
      this.logger.warn(`CEL policy status not written, retrying in ${this.retryMs} ms: ${outcome.failed.join('; ')}`);
      this.passes.schedule(this.retryMs);
    }
    return outcome;
  }

  private async write(
    entry: CelPolicyEntry,
    publication: WebhookPublication,
  ): Promise<'written' | 'unchanged' | 'stale' | 'not-leader'> {
    const generation = generationOf(entry.object);
    const published = publication.policies.get(entry.key);
    const webhookConfigured =
      publication.policies.has(entry.key) && (published === undefined || published === generation);
    const missingPermissions = celStatusConditions(entry).reporting
      ? await this.deps.permissions?.missing(entry)
      : undefined;
    const facts = { webhookConfigured, ...(missingPermissions ? { missingPermissions } : {}) };
    let observed: KubeObject | undefined = entry.object;
    for (let attempt = 0; ; attempt++) {
      if (!observed || generationOf(observed) !== generation) return 'stale';
      const desired = desiredCelPolicyStatus({ ...entry, object: observed }, facts, this.now());
      if (celStatusMatches(observed.status, desired)) return 'unchanged';
      if (!this.deps.leader.isLeader()) return 'not-leader';
      try {
        await this.deps.store.replaceStatus({ ...observed, status: desired });
        return 'written';
      } catch (error) {
        if (!isConflict(error) || attempt >= this.maxConflictRetries) throw error;
      }
      observed = await this.deps.store.get(entry.kind, entry.name, entry.namespace);
    }
  }
}

function generationOf(object: KubeObject): number | undefined {
  const generation = object.metadata?.['generation'];
  return typeof generation === 'number' ? generation : undefined;
}
