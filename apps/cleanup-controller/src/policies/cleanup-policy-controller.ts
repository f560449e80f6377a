/**
 * Leader-only: runs each CleanupPolicy and ClusterCleanupPolicy on its schedule, in process.
 * Kyverno 1.12 created a CronJob per policy that called back into the controller; a CronJob needs a
 * kubelet to run its Pod, which the embedded cluster has not, so the leader keeps a timer per policy
 * instead (see docs/controllers/cleanup.md).
 *
 * Each slot runs once even across a leader change. Leader election does not fence: for a moment two
 * replicas may both believe they lead. So the slot is decided from the policy's own status (the
 * last execution time) and the clock, and claimed before anything is deleted by writing
 * `status.lastExecutionTime` at the resourceVersion the decision was read at. The API server lets
 * exactly one write at that resourceVersion through; a replica that gets a conflict reads the policy
 * again and finds the slot taken. Claiming before deleting (rather than after) makes a slot run at
 * most once: a leader that dies halfway leaves the rest of that slot to the next one, as a missed
 * CronJob run would, instead of two leaders deleting and reporting the same objects.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { isCleanupPolicyKind, parseCronSchedule, type CleanupPolicy, type CleanupPolicyKind } from '@edict/engine';
import { InformerFactory, KubeResources } from '@edict/kube';
import { type KubeObject, errorMessage } from '@edict/foundation';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import type { WorkQueue } from '@edict/work-queue';
import { kubeCleanupCluster, type CleanupCluster } from '../cluster/cleanup-cluster';
import type { CleanupConfig } from '../config/cleanup-config';
import { CLEANUP_CONFIG } from '../config/tokens';
import { CleanupEvents, cleanupEvent } from '../events/cleanup-events';
import { CleanupMetrics } from '../metrics/cleanup-metrics';
import { CleanupContextLoaders } from './cleanup-context-loaders';
import { runCleanupPolicy } from './cleanup-run';
import { decideSlot } from './schedule-slot';
import { claimExecution, readQueuedPolicy, runPolicyQueue } from './policy-queue';

const API_VERSION = 'kyverno.io/v2';
const KINDS: readonly CleanupPolicyKind[] = ['ClusterCleanupPolicy', 'CleanupPolicy'];

@Injectable()
@LeaderProvider()
export class CleanupPolicyController implements LeaderAware {
  private readonly logger = new Logger('CleanupPolicies');
  private readonly cluster: CleanupCluster;
  /** Schedules already reported as unusable, so a broken policy is logged once per change. */
  private readonly reported = new Map<string, string>();

  constructor(
    @Inject(CLEANUP_CONFIG) private readonly config: CleanupConfig,
    private readonly informers: InformerFactory,
    private readonly resources: KubeResources,
    private readonly metrics: CleanupMetrics,
    private readonly events: CleanupEvents,
    private readonly context: CleanupContextLoaders,
  ) {
    this.cluster = kubeCleanupCluster(resources);
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    await runPolicyQueue(
      {
        informers: this.informers,
        apiVersion: API_VERSION,
        kinds: KINDS,
        workers: this.config.workers,
        watchTimeoutSeconds: this.config.watchTimeoutSeconds,
        handle: (key, queue) => this.handle(key, queue),
      },
      signal,
    );
  }

  private async handle(key: string, queue: WorkQueue): Promise<void> {
    const policy = await this.read(key);
    if (!policy) return;
    let schedule;
    try {
      schedule = parseCronSchedule(policy.spec.schedule ?? '');
    } catch (error) {
      this.reportOnce(key, `${key}: not run: invalid schedule: ${(error as Error).message}`);
      return;
    }
    const decision = decideSlot(schedule, policy, new Date());
    if (decision.kind === 'never') return this.reportOnce(key, `${key}: its schedule has no next slot`);
    if (decision.kind === 'wait') {
      queue.addAfter(key, Math.max(0, decision.until.getTime() - new Date().getTime()));
      return;
    }
    if (!(await this.claim(policy))) {
      queue.add(key); // someone else wrote the policy since it was read: decide again
      return;
    }
    this.metrics.ran(policy.kind ?? 'ClusterCleanupPolicy', policy.metadata.name, policy.metadata.namespace);
    const result = await runCleanupPolicy(policy, {
      cluster: this.cluster,
      loaders: this.context.loaders,
      maxTargets: this.config.maxTargetsPerRun,
      report: (target, error) => {
        this.metrics.cleanupOutcome(
          {
            policyKind: policy.kind ?? 'ClusterCleanupPolicy',
            policyName: policy.metadata.name,
            ...(policy.metadata.namespace ? { policyNamespace: policy.metadata.namespace } : {}),
            kind: target.kind ?? '',
            ...(target.metadata?.namespace ? { namespace: target.metadata.namespace } : {}),
          },
          error === undefined,
        );
        this.events.record(cleanupEvent(policy, target, error));
      },
    }).catch((error: unknown) => {
      // The slot is spent (claimed); the next one tries again.
      this.logger.warn(`${key}: run failed: ${errorMessage(error)}`);
      return undefined;
    });
    if (result) this.logger.log(`${key}: deleted ${result.deleted}, failed ${result.failed}`);
    queue.add(key); // schedules the next slot from the status just written
  }

  /** Writes `status.lastExecutionTime` at the read resourceVersion; false when another write came first. */
  private claim(policy: CleanupPolicy): Promise<boolean> {
    const executed = new Date(Math.floor(new Date().getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    return claimExecution(this.resources, policy as unknown as KubeObject, executed);
  }

  private async read(key: string): Promise<CleanupPolicy | undefined> {
    const object = await readQueuedPolicy(this.resources, API_VERSION, key);
    return object && isCleanupPolicyKind(object.kind) ? (object as unknown as CleanupPolicy) : undefined;
  }

  private reportOnce(key: string, message: string): void {
    if (this.reported.get(key) === message) return;
    this.reported.set(key, message);
    this.logger.warn(message);
  }
}
