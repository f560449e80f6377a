/**
 * Creates the kyverno.io/v2 UpdateRequests the background controller works from (Kyverno's
 * webhooks/updaterequest generator): in the controller's namespace, `generateName: ur-`, Kyverno's
 * labels, then status `Pending`. Bounded queue (a full one drops and counts), retries on transient
 * errors. A retried create whose first answer was lost must not make a second request: every
 * request carries a key label (request uid, policy and rule), looked up before trying again.
 * Back pressure as in Kyverno: while the UpdateRequests in the cluster are at or above
 * `updateRequestThreshold`, a new one is skipped, with a warning naming it, and counted.
 */
import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { UpdateRequestSpec } from '@edict/admission';
import type { KubeObject, KubeResources } from '@edict/kube';
import { BoundedWorkQueue, withRetry, type RetryOptions, type WorkQueueStats } from '@edict/reports';
import { updateRequestLabels } from './update-request-labels';

/** Edict's own label: the idempotency key of one UpdateRequest. */
export const UR_REQUEST_KEY_LABEL = 'edict.io/update-request-key';

/** UpdateRequests written at once unless told otherwise (the admission controller's setting). */
export const UPDATE_REQUEST_WRITERS = 2;

export interface UpdateRequestJob {
  requestUid: string;
  spec: UpdateRequestSpec;
}

/** Whether the cluster holds too many UpdateRequests to add one (Kyverno's `updateRequestThreshold`). */
export interface UpdateRequestBackPressure {
  /** UpdateRequests in the controller's namespace now; undefined while unknown (nothing is held back). */
  count(): number | undefined;
  /** Read for every request: the ConfigMap can change it. */
  threshold(): number;
}

export interface UpdateRequestCreatorOptions {
  namespace: string;
  queueSize: number;
  workers?: number;
  retry?: RetryOptions;
  onDrop?: () => void;
  backPressure?: UpdateRequestBackPressure;
}

export interface UpdateRequestCreatorStats extends WorkQueueStats {
  /** Requests not created because `updateRequestThreshold` was reached, since start. */
  skipped: number;
}

export class UpdateRequestCreator {
  private readonly logger = new Logger('UpdateRequests');
  private readonly queue: BoundedWorkQueue<UpdateRequestJob>;
  private skipped = 0;

  constructor(
    private readonly resources: Pick<KubeResources, 'create' | 'list' | 'replace'>,
    private readonly options: UpdateRequestCreatorOptions,
  ) {
    this.queue = new BoundedWorkQueue<UpdateRequestJob>({
      capacity: options.queueSize,
      workers: options.workers ?? UPDATE_REQUEST_WRITERS,
      handler: (job) => this.create(job),
      onError: (error, job) =>
        this.logger.warn(
          `UpdateRequest for ${job.spec.policy}/${job.spec.rule} not created: ${(error as Error).message}`,
        ),
      onDrop: () => options.onDrop?.(),
    });
  }

  submit(job: UpdateRequestJob): boolean {
    return this.queue.offer(job);
  }

  stats(): UpdateRequestCreatorStats {
    const { depth, active, accepted, dropped, done, failed } = this.queue.stats();
    // Written out: a spread that gains a key takes V8's slow path, and the drain estimate reads this per review.
    return { depth, active, accepted, dropped, done, failed, skipped: this.skipped };
  }

  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  drain(timeoutMs: number): Promise<boolean> {
    return this.queue.drain(timeoutMs);
  }

  private async create(job: UpdateRequestJob): Promise<void> {
    if (this.holdsBack(job)) return;
    const key = requestKey(job);
    const labels = { ...updateRequestLabels(job.spec), [UR_REQUEST_KEY_LABEL]: key };
    const body: KubeObject = {
      apiVersion: 'kyverno.io/v2',
      kind: 'UpdateRequest',
      metadata: { generateName: 'ur-', namespace: this.options.namespace, labels },
      spec: job.spec as unknown as Record<string, unknown>,
    };
    const created = await withRetry(async (attempt) => {
      if (attempt > 1) {
        const existing = await this.find(key);
        if (existing) return existing;
      }
      return this.resources.create(body);
    }, this.options.retry);
    if (!(created.status as { state?: string } | undefined)?.state) {
      await withRetry(
        () => this.resources.replace({ ...created, status: { state: 'Pending' } }, { subresource: 'status' }),
        this.options.retry,
      ).catch((error: Error) => this.logger.warn(`UpdateRequest ${created.metadata?.name} status: ${error.message}`));
    }
  }

  private holdsBack({ spec }: UpdateRequestJob): boolean {
    const count = this.options.backPressure?.count();
    const threshold = this.options.backPressure?.threshold() ?? Infinity;
    if (count === undefined || count < threshold) return false;
    this.skipped += 1;
    const trigger = spec.resource;
    const where = trigger.namespace ? `${trigger.namespace}/${trigger.name ?? ''}` : (trigger.name ?? '');
    this.logger.warn(
      `${spec.requestType} UpdateRequest for policy ${spec.policy}, rule ${spec.rule}, trigger ${trigger.kind ?? ''} ` +
        `${where} skipped: ${count} UpdateRequests in namespace ${this.options.namespace}, at or above ` +
        `updateRequestThreshold ${threshold} (raise it in the ConfigMap, or see why the background controller lags)`,
    );
    return true;
  }

  private async find(key: string): Promise<KubeObject | undefined> {
    const page = await this.resources.list(
      { apiVersion: 'kyverno.io/v2', kind: 'UpdateRequest', namespace: this.options.namespace },
      { labelSelector: `${UR_REQUEST_KEY_LABEL}=${key}` },
    );
    return page.items[0];
  }
}

/** A label-safe key for one rule's UpdateRequest for one trigger of one admission request. */
function requestKey(job: UpdateRequestJob): string {
  return createHash('sha256')
    .update(
      [
        job.requestUid,
        job.spec.policy,
        job.spec.rule,
        job.spec.requestType,
        // One admission request may name several triggers of one rule (a clone source's copies).
        job.spec.resource.uid ?? job.spec.resource.name ?? '',
        String(job.spec.deleteDownstream),
      ].join('\u0000'),
    )
    .digest('hex')
    .slice(0, 40);
}
