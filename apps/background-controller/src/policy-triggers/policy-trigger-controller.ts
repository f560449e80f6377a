/**
 * Leader-only: follows the policy cache and hands each policy change to PolicyLifecycle, one
 * change of a policy at a time and in order (a rule removed, then the policy deleted), policies
 * side by side. On becoming leader every installed policy counts as created, as Kyverno's policy
 * controller processes every policy when it starts; deletions while no replica led are not seen.
 * A failed change is retried with a doubling delay, then given up with an error in the log.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { KubeResources } from '@edict/kube';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import { PolicyCache } from '@edict/policy';
import type { BackgroundConfig } from '../config/background-config';
import { BACKGROUND_CONFIG } from '../config/tokens';
import { ClusterEngine } from '@edict/context';
import { WorkQueue } from '@edict/work-queue';
import { kubeClusterListing } from './cluster-listing';
import { PolicyChangeTracker, type PolicyChange } from './policy-changes';
import { PolicyLifecycle } from './policy-lifecycle';
import { errorMessage } from '@edict/foundation';

/** Policies handled at once. */
const WORKERS = 2;
/** Attempts of one change before it is given up. */
const MAX_ATTEMPTS = 8;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 60_000;
/** UpdateRequests one policy change may create. */
const MAX_REQUESTS_PER_CHANGE = 10_000;

@Injectable()
@LeaderProvider()
export class PolicyTriggerController implements LeaderAware {
  private readonly logger = new Logger('PolicyTriggers');
  private readonly lifecycle: PolicyLifecycle;
  private readonly pending = new Map<string, PolicyChange[]>();
  private readonly attempts = new Map<string, number>();
  private queue?: WorkQueue;

  constructor(
    @Inject(BACKGROUND_CONFIG) config: BackgroundConfig,
    private readonly cache: PolicyCache,
    resources: KubeResources,
    engine: ClusterEngine,
  ) {
    this.lifecycle = new PolicyLifecycle(
      {
        cluster: kubeClusterListing(resources),
        engine,
        namespace: config.namespace,
        namespaceLabels: (namespace) => engine.namespaceLabels(namespace),
        log: (message) => this.logger.log(message),
        warn: (message) => this.logger.warn(message),
      },
      { maxRequests: MAX_REQUESTS_PER_CHANGE },
    );
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    const queue = new WorkQueue((key) => this.handle(key, signal), WORKERS);
    this.queue = queue;
    const tracker = new PolicyChangeTracker();
    const observe = () => {
      if (signal.aborted) return;
      for (const change of tracker.observe(this.cache.snapshot())) this.enqueue(change);
    };
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([this.cache.waitForSync(), stopped]);
    if (!signal.aborted) {
      const off = this.cache.onChange(observe);
      observe();
      await stopped;
      off();
    }
    await queue.stop();
    this.pending.clear();
    this.attempts.clear();
  }

  private enqueue(change: PolicyChange): void {
    const key = (change.type === 'deleted' ? change.previous : change.policy).key;
    const changes = this.pending.get(key) ?? [];
    changes.push(change);
    this.pending.set(key, changes);
    this.queue?.add(key);
  }

  private async handle(key: string, signal: AbortSignal): Promise<void> {
    const changes = this.pending.get(key);
    const change = changes?.[0];
    if (!changes || !change) return;
    try {
      await this.lifecycle.handle(change, signal);
      this.attempts.delete(key);
    } catch (error) {
      const attempts = (this.attempts.get(key) ?? 0) + 1;
      if (attempts < MAX_ATTEMPTS) {
        this.attempts.set(key, attempts);
        this.logger.warn(`policy ${key} (${change.type}): ${errorMessage(error)}; retrying`);
        this.queue?.addAfter(key, Math.min(FIRST_RETRY_MS * 2 ** (attempts - 1), MAX_RETRY_MS));
        return;
      }
      this.attempts.delete(key);
      this.logger.error(`policy ${key} (${change.type}): giving up after ${attempts} attempts: ${errorMessage(error)}`);
    }
    changes.shift();
    if (changes.length === 0) this.pending.delete(key);
    else this.queue?.add(key);
  }
}
