/**
 * Context loads that wait on the network (apiCall, imageRegistry), shared fairly between policy
 * namespaces (ClusterPolicies are one tenant): at most `maxLoads` at once and `maxLoadsPerNamespace`
 * of one namespace's policies, a freed slot going to the waiting namespaces in turn, so a tenant's
 * slow lookups wait behind each other, not in front of everyone's. Each load, its wait for a slot
 * included, gets at most a share of its review's remaining time, so a slow entry still leaves the
 * rule time to finish and the review an answer before the API server gives up.
 */
import type { LoaderScope } from '@edict/engine';
import { FairLimiter } from '@edict/work-queue';

/** The part of a review's remaining time one load may take. */
export const LOAD_SHARE_OF_REMAINING = 0.5;
/** Longest wait for a slot of a load without a deadline (the background and cleanup controllers). */
const WAIT_WITHOUT_DEADLINE_MS = 10_000;
/** Loads that may wait for a slot, per slot. */
const QUEUED_PER_SLOT = 16;

export interface ContextLoadLimits {
  readonly maxLoads: number;
  readonly maxLoadsPerNamespace: number;
}

export class ContextLoadError extends Error {
  override readonly name = 'ContextLoadError';
}

export class FairContextLoads {
  private readonly limiter: FairLimiter;

  constructor(limits: ContextLoadLimits) {
    const perNamespace = Math.min(limits.maxLoads, limits.maxLoadsPerNamespace);
    this.limiter = new FairLimiter({
      maxInFlight: limits.maxLoads,
      maxInFlightPerTenant: perNamespace,
      maxQueued: limits.maxLoads * QUEUED_PER_SLOT,
      maxQueuedPerTenant: perNamespace * QUEUED_PER_SLOT,
    });
  }

  /**
   * Runs `load` for the policy `scope` names when its namespace has a free slot; `load` is told how
   * many milliseconds it may still take (undefined: no deadline). `what` names the load in errors.
   */
  async run<T>(scope: LoaderScope, what: string, load: (shareMs: number | undefined) => Promise<T>): Promise<T> {
    const remaining = scope.deadline?.remainingMs?.();
    // An evaluation without an end (audits take turns but have no deadline) keeps the callers' limits.
    const shareMs =
      remaining === undefined || !Number.isFinite(remaining)
        ? undefined
        : Math.floor(remaining * LOAD_SHARE_OF_REMAINING);
    if (shareMs !== undefined && shareMs <= 0) throw new ContextLoadError(`${what}: the review's deadline has passed`);
    const started = performance.now();
    const left = () =>
      shareMs === undefined ? undefined : Math.max(1, Math.round(shareMs - (performance.now() - started)));
    const tenant = scope.policyNamespace ?? '';
    const slot = await this.limiter.run(tenant, () => load(left()), shareMs ?? WAIT_WITHOUT_DEADLINE_MS);
    if (slot.admitted) return slot.value;
    const whose = tenant ? `policies in namespace ${tenant}` : 'ClusterPolicies';
    const why =
      slot.reason === 'queue-full'
        ? `too many context loads of ${whose} are waiting`
        : `no context load slot of ${whose} freed up within ${shareMs ?? WAIT_WITHOUT_DEADLINE_MS} ms`;
    throw new ContextLoadError(`${what}: ${why} (EDICT_MAX_CONTEXT_LOADS_PER_NAMESPACE)`);
  }

  /** Loads running and waiting, in all and for one policy namespace ('' for ClusterPolicies). */
  stats(namespace?: string): { inFlight: number; queued: number } {
    if (namespace !== undefined) return this.limiter.tenant(namespace);
    return { inFlight: this.limiter.inFlight(), queued: this.limiter.queued() };
  }
}

/** `work` or a ContextLoadError once `ms` passed (for loads that take no timeout of their own). */
export function within<T>(work: Promise<T>, ms: number | undefined, what: string): Promise<T> {
  if (ms === undefined) return work;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new ContextLoadError(`${what}: no answer within ${ms} ms (its share of the review's remaining time)`)),
      ms,
    );
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}
