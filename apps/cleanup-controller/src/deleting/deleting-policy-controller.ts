/**
 * Leader-only: runs each DeletingPolicy and NamespacedDeletingPolicy on its schedule, as Kyverno's
 * deleting controller does, and as the classic cleanup policies run here (see
 * cleanup-policy-controller.ts): the slot due is decided from the policy's status and the clock
 * (the slot after status.lastExecutionTime, or after creation), claimed by writing
 * `status.lastExecutionTime` (the slot, as Kyverno writes it) at the resourceVersion it was read at,
 * and only then run. A second replica, or a second look at the same slot, finds it taken: each slot
 * runs once, and deleting an object already gone is not reported. The policy's CEL PolicyExceptions
 * (policies.kyverno.io) are read at each run.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  compileCelPolicyException,
  compileDeletingPolicy,
  executionTime,
  type CompiledCelPolicyException,
  type CompiledDeletingPolicy,
  type DeletingPolicyKind,
} from '@edict/cel-policies';
import { KubeCelResourcePort, RegistryCelImageDataPort } from '@edict/context';
import { InformerFactory, isNotFound, KubeResources } from '@edict/kube';
import { deadlineAfter, errorMessage, type KubeObject } from '@edict/foundation';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import type { WorkQueue } from '@edict/work-queue';
import { kubeCleanupCluster, type CleanupCluster } from '../cluster/cleanup-cluster';
import type { CleanupConfig } from '../config/cleanup-config';
import { CLEANUP_CONFIG } from '../config/tokens';
import { CleanupEvents, cleanupEvent } from '../events/cleanup-events';
import { CleanupMetrics } from '../metrics/cleanup-metrics';
import { CleanupContextLoaders } from '../policies/cleanup-context-loaders';
import { runDeletingPolicy } from './deleting-run';
import { claimExecution, readQueuedPolicy, runPolicyQueue } from '../policies/policy-queue';

export const DELETING_API_VERSION = 'policies.kyverno.io/v1';
const KINDS: readonly DeletingPolicyKind[] = ['DeletingPolicy', 'NamespacedDeletingPolicy'];
/** One run's CEL evaluations together may take this long; the rest of the slot then fails. */
const RUN_DEADLINE_MS = 5 * 60_000;

@Injectable()
@LeaderProvider()
export class DeletingPolicyController implements LeaderAware {
  private readonly logger = new Logger('DeletingPolicies');
  private readonly cluster: CleanupCluster;
  private readonly celResources: KubeCelResourcePort;
  private readonly celImageData: RegistryCelImageDataPort;
  /** Problems already reported, so a broken policy is logged once per change. */
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
    this.celResources = new KubeCelResourcePort(resources);
    this.celImageData = new RegistryCelImageDataPort(context.images);
  }

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    await runPolicyQueue(
      {
        informers: this.informers,
        apiVersion: DELETING_API_VERSION,
        kinds: KINDS,
        workers: this.config.workers,
        watchTimeoutSeconds: this.config.watchTimeoutSeconds,
        handle: (key, queue) => this.handle(key, queue),
      },
      signal,
    );
  }

  /** One look at a policy: wait for its next slot, or claim and run the slot due. */
  async handle(key: string, queue: Pick<WorkQueue, 'add' | 'addAfter'>): Promise<void> {
    const policy = await readQueuedPolicy(this.resources, DELETING_API_VERSION, key);
    if (!policy) return;
    let compiled: CompiledDeletingPolicy;
    try {
      compiled = compileDeletingPolicy(policy);
    } catch (error) {
      this.reportOnce(key, `${key}: not run: ${errorMessage(error)}`);
      return;
    }
    const now = new Date();
    const due = executionTime(compiled, statusOf(policy), policy.metadata.creationTimestamp, now);
    if (!due) return this.reportOnce(key, `${key}: its schedule has no next slot`);
    if (due.getTime() > now.getTime()) {
      queue.addAfter(key, due.getTime() - now.getTime());
      return;
    }
    if (!(await this.claim(policy, due))) {
      queue.add(key); // someone else wrote the policy since it was read: decide again
      return;
    }
    this.metrics.ran(compiled.kind, compiled.name, compiled.namespace);
    const result = await this.run(compiled).catch((error: unknown) => {
      // The slot is spent (claimed); the next one tries again.
      this.logger.warn(`${key}: run failed: ${errorMessage(error)}`);
      return undefined;
    });
    if (result) this.logger.log(`${key}: deleted ${result.deleted}, failed ${result.failed}`);
    queue.add(key); // schedules the next slot from the status just written
  }

  private async run(compiled: CompiledDeletingPolicy) {
    const policyTarget = {
      policyKind: compiled.kind,
      policyName: compiled.name,
      ...(compiled.namespace ? { policyNamespace: compiled.namespace } : {}),
      ...(compiled.deletionPropagationPolicy ? { propagation: compiled.deletionPropagationPolicy } : {}),
    };
    const policy = compiled.policy as KubeObject & { metadata: { name: string } };
    return runDeletingPolicy(compiled, {
      cluster: this.cluster,
      context: {
        ports: { http: this.context.callers.celHttp, resources: this.celResources, imageData: this.celImageData },
        exceptions: await this.exceptions(),
        deadline: deadlineAfter(RUN_DEADLINE_MS),
      },
      maxTargets: this.config.maxTargetsPerRun,
      report: (target, error) => {
        this.metrics.deletingOutcome(
          {
            ...policyTarget,
            kind: target.kind ?? '',
            ...(target.metadata?.namespace ? { namespace: target.metadata.namespace } : {}),
          },
          error === undefined,
        );
        this.events.record(cleanupEvent(policy, target, error));
      },
      failed: (kind, namespace, error) => {
        this.metrics.deletingOutcome({ ...policyTarget, kind, ...(namespace ? { namespace } : {}) }, false);
        this.logger.warn(`${compiled.kind} ${compiled.name}: ${kind}: ${error}`);
      },
    });
  }

  /** The CEL PolicyExceptions of the cluster (those naming the policy are picked by the engine). */
  private async exceptions(): Promise<CompiledCelPolicyException[]> {
    let items: KubeObject[];
    try {
      items = (await this.resources.list<KubeObject>({ apiVersion: DELETING_API_VERSION, kind: 'PolicyException' }))
        .items;
    } catch (error) {
      if (isNotFound(error)) return []; // the CRD is not installed: no exceptions
      throw error;
    }
    return items.flatMap((item) => {
      try {
        return [compileCelPolicyException(item)];
      } catch {
        return []; // an invalid exception excuses nothing
      }
    });
  }

  /** Writes `status.lastExecutionTime` (the slot) at the read resourceVersion; false when another write came first. */
  private claim(policy: KubeObject, slot: Date): Promise<boolean> {
    return claimExecution(this.resources, policy, slot.toISOString().replace(/\.\d{3}Z$/, 'Z'));
  }

  private reportOnce(key: string, message: string): void {
    if (this.reported.get(key) === message) return;
    this.reported.set(key, message);
    this.logger.warn(message);
  }
}

function statusOf(policy: KubeObject): { lastExecutionTime?: string } {
  const status = (policy as { status?: unknown }).status;
  return typeof status === 'object' && status !== null ? (status as { lastExecutionTime?: string }) : {};
}
