/**
 * PolicyStatusWriter: writes each ClusterPolicy's and Policy's status as Kyverno does (see
 * policy-status.ts), through the `/status` subresource. Leader only (checked before every pass and
 * every write). Idempotent: it computes the desired status, compares it with the stored one and
 * writes only the difference; a write carries the observed resourceVersion and a conflict is
 * retried on a fresh read. Two leaders in turn therefore converge on the same status, and a pass
 * with nothing to change writes nothing.
 *
 * Readiness comes from the webhook controller: the writer holds the last publication it heard and
 * does nothing before the first one since it became leader, so a new leader never downgrades the
 * policies to Not Ready while its own webhook pass is still to come (Kyverno holds statuses the
 * same way while its webhook health is unknown).
 *
 * Triggers: policy cache changes (add, update) and webhook publications, debounced; no polling
 * (`StatusPasses`, shared with the CEL policy status writer).
 *
 * A policy whose stored version turned invalid gets Ready=False saying what is still enforced (see
 * `invalidMessage`) and one Warning Event (Kyverno's `PolicyError`) when that message is written: a
 * second leader, or a second pass, finds the status already saying it and writes nothing, so records
 * nothing either.
 */
import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Policy } from '@edict/engine';
import { isConflict, type EventInput } from '@edict/kube';
import type { PolicySnapshot } from '../cache/policy-snapshot';
import {
  desiredPolicyStatus,
  generationOf,
  policyReadiness,
  READY_CONDITION,
  statusMatches,
  statusOf,
  type PolicyEntry,
  type PolicyReadiness,
  type WebhookPublication,
} from './policy-status';
import type { LeaderGate } from '@edict/leader';
import type { PolicyStatusStore, StatusPolicySource, WebhookPublicationSource } from './ports';
import { errorMessage } from '@edict/foundation';
import { StatusPasses, statusWriterOptions, type StatusWriterOptions } from './status-passes';

export type PolicyStatusWriterOptions = StatusWriterOptions;

export interface PolicyStatusWriterDeps {
  readonly policies: StatusPolicySource;
  readonly publications: WebhookPublicationSource;
  readonly store: PolicyStatusStore;
  readonly leader: LeaderGate;
  /** Where the PolicyError events go (none: no events). */
  readonly events?: { record(event: EventInput): void };
}

export type StatusPassOutcome =
  | { readonly status: 'skipped'; readonly reason: 'stopped' | 'not-leader' | 'not-published' }
  | {
      readonly status: 'done';
      /** Keys whose status was written. */
      readonly written: string[];
      readonly unchanged: number;
      /** Keys whose stored object moved on (new spec, or gone): the cache's next change brings them back. */
      readonly stale: string[];
      /** `key: reason` of writes that failed; retried after `retryMs`. */
      readonly failed: string[];
    };

/** `written-new-message`: written, and the Ready condition's message changed with it. */
type WriteResult = 'written' | 'written-new-message' | 'unchanged' | 'stale' | 'not-leader';

export class PolicyStatusWriter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('PolicyStatusWriter');
  private readonly retryMs: number;
  private readonly maxConflictRetries: number;
  private readonly now: () => Date;
  private readonly passes: StatusPasses<StatusPassOutcome>;

  constructor(
    private readonly deps: PolicyStatusWriterDeps,
    options: PolicyStatusWriterOptions = {},
  ) {
    const resolved = statusWriterOptions('PolicyStatusWriter', options);
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
      'policy status',
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

  /**
   * A pass `delayMs` (default: the debounce) from now, unless one is due sooner. A pending pass is
   * not pushed back (it reads the state when it runs): a steady stream of policy changes must not
   * keep every policy's Ready condition waiting.
   */
  schedule(delayMs?: number): void {
    this.passes.schedule(delayMs);
  }

  /** The publication readiness is judged against (undefined until the first one of this term). */
  lastPublication(): WebhookPublication | undefined {
    return this.passes.lastPublication();
  }

  /**
   * One pass over every cached policy. Passes never overlap: a call during a pass waits for it,
   * then runs a fresh one (the cache may have moved); callers waiting together share it.
   */
  sync(): Promise<StatusPassOutcome> {
    return this.passes.sync();
  }

  private async pass(): Promise<StatusPassOutcome> {
    if (this.passes.stopped) return { status: 'skipped', reason: 'stopped' };
    if (!this.deps.leader.isLeader()) return { status: 'skipped', reason: 'not-leader' };
    const publication = this.passes.lastPublication();
    if (!publication) return { status: 'skipped', reason: 'not-published' };
    const outcome = {
      status: 'done' as const,
      written: [] as string[],
      unchanged: 0,
      stale: [] as string[],
      failed: [],
    };
    const failed: string[] = outcome.failed;
    for (const [key, entry] of entriesOf(this.deps.policies.snapshot())) {
      if (this.passes.stopped) break;
      const source = 'valid' in entry ? entry.valid.source : entry.invalid.source;
      if (!source) continue;
      const readiness = policyReadiness(entry, publication);
      try {
        const result = await this.write(source, readiness);
        if (result === 'not-leader') return { status: 'skipped', reason: 'not-leader' };
        if (result === 'written-new-message' && 'invalid' in entry && !readiness.ready) {
          this.recordInvalid(source, readiness.message);
        }
        if (result === 'written' || result === 'written-new-message') outcome.written.push(key);
        else if (result === 'stale') outcome.stale.push(key);
        else outcome.unchanged += 1;
      } catch (error) {
        failed.push(`${key}: ${errorMessage(error)}`);
      }
    }
    if (outcome.written.length > 0) this.logger.log(`policy status written: ${outcome.written.join(', ')}`);
    if (failed.length > 0) {
      this.logger.warn(`policy status not written, retrying in ${this.retryMs} ms: ${failed.join('; ')}`);
      this.passes.schedule(this.retryMs);
    }
    return outcome;
  }

  /** The Event for a written "invalid" condition: once per message, as the status changes once. */
  private recordInvalid(policy: Policy, message: string): void {
    const { kind, metadata } = policy;
    this.deps.events?.record({
      regarding: {
        apiVersion: policy.apiVersion ?? 'kyverno.io/v1',
        kind,
        name: metadata.name,
        ...(kind === 'Policy' && metadata.namespace ? { namespace: metadata.namespace } : {}),
        ...(metadata.uid ? { uid: metadata.uid } : {}),
        ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}),
      },
      type: 'Warning',
      reason: 'PolicyError',
      action: 'None',
      note: message.replace(/^Not Ready: /, ''),
    });
  }

  /**
   * Writes one policy's status when it differs. The first attempt uses the cached object (and its
   * resourceVersion); after a conflict, a fresh read. A fresh object of another generation is left
   * for the pass its cache update triggers (its readiness was judged on the cached generation).
   */
  private async write(cached: Policy, readiness: PolicyReadiness): Promise<WriteResult> {
    let observed: Policy | undefined = cached;
    for (let attempt = 0; ; attempt++) {
      if (!observed || generationOf(observed) !== generationOf(cached)) return 'stale';
      const desired = desiredPolicyStatus(observed, readiness, this.now());
      if (statusMatches(statusOf(observed), desired)) return 'unchanged';
      if (!this.deps.leader.isLeader()) return 'not-leader';
      try {
        await this.deps.store.replaceStatus({ ...observed, status: desired } as Policy);
        return readyMessageOf(statusOf(observed)) === readyMessageOf(desired) ? 'written' : 'written-new-message';
      } catch (error) {
        if (!isConflict(error) || attempt >= this.maxConflictRetries) throw error;
      }
      const { kind, metadata } = cached;
      observed = await this.deps.store.get(kind, metadata.name, kind === 'Policy' ? metadata.namespace : undefined);
    }
  }
}

function readyMessageOf(status: { conditions?: unknown }): unknown {
  const conditions = Array.isArray(status.conditions)
    ? (status.conditions as Array<{ type?: unknown; message?: unknown }>)
    : [];
  return conditions.find((c) => c?.type === READY_CONDITION)?.message;
}

function entriesOf(snapshot: PolicySnapshot): Array<[string, PolicyEntry]> {
  const out: Array<[string, PolicyEntry]> = [];
  // A key in both is an invalid stored version with another in force: its status is the invalid one's.
  for (const [key, valid] of snapshot.policies) if (!snapshot.invalid.has(key)) out.push([key, { valid }]);
  for (const [key, invalid] of snapshot.invalid) out.push([key, { invalid }]);
  return out;
}
