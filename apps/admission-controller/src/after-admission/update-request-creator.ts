/**
 * Creates the kyverno.io/v2 UpdateRequests the background controller works from (Kyverno's
 * webhooks/updaterequest generator): in the controller's namespace, Kyverno's labels, then status
 * `Pending`. Two ways in:
 *  - `writeBeforeAnswer`, for the generate and mutate-existing triggers of an admitted review: the
 *    creates run while the review waits, up to a time budget (what is left of its deadline), so an
 *    answered trigger has its request stored in the API server and a dropped job or a SIGKILL loses
 *    nothing. Past the budget the review is answered and the writes go on (counted as late); the
 *    status write never holds the answer (the background controller takes a request without a
 *    state as Pending).
 *  - `submit`, a bounded queue (a full one drops and counts), for requests that must wait for the
 *    answer (a synchronized downstream's restore: it must not run before the change it undoes is stored).
 * Every request's name is derived from its admission request uid, policy, rule and trigger, so a
 * retried create whose first answer was lost, or the same review written twice, makes one request:
 * the second create answers AlreadyExists and counts as done.
 * Back pressure as in Kyverno: while the UpdateRequests in the cluster are at or above
 * `updateRequestThreshold`, a new one is skipped, with a warning naming it, and counted.
 */
import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { UpdateRequestSpec } from '@edict/admission';
import { isAlreadyExists, type KubeResources, withRetry } from '@edict/kube';
import type { ObjectHeader } from '@edict/foundation';
import { BoundedWorkQueue, type RetryOptions, type WorkQueueStats } from '@edict/work-queue';
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
  /** Requests stored before their review was answered, since start. */
  beforeAnswer: number;
  /** Requests whose review was answered before they were stored (the budget ran out), since start. */
  late: number;
  /** Requests written before the answer that could not be created at all, since start. */
  lost: number;
}

/** What `writeBeforeAnswer` did with one review's requests. */
export interface BeforeAnswerResult {
  readonly written: number;
  /** Still being written when the budget ran out. */
  readonly late: number;
  readonly failed: number;
}

/** An UpdateRequest as written here and answered by the API server. */
type StoredRequest = ObjectHeader & { spec: UpdateRequestJob['spec']; status?: { state?: string } };

export class UpdateRequestCreator {
  private readonly logger = new Logger('UpdateRequests');
  private readonly queue: BoundedWorkQueue<UpdateRequestJob>;
  /** Writes started by `writeBeforeAnswer` and their status writes, until they settle. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private skipped = 0;
  private beforeAnswer = 0;
  private late = 0;
  private lost = 0;

  constructor(
    private readonly resources: Pick<KubeResources, 'create' | 'replace'>,
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

  /**
   * Creates the requests of one admitted review, waiting at most `budgetMs` (the review's time
   * left) for them to be stored; what is not stored by then goes on after the answer.
   */
  async writeBeforeAnswer(jobs: readonly UpdateRequestJob[], budgetMs: number): Promise<BeforeAnswerResult> {
    let written = 0;
    let failed = 0;
    const writes = jobs.map((job) =>
      this.track(
        this.store(job).then(
          (created) => {
            if (created === undefined) return;
            written += 1;
            this.beforeAnswer += 1;
            if (created) this.track(this.markPending(created));
          },
          (error: Error) => {
            failed += 1;
            this.lost += 1;
            this.logger.warn(
              `UpdateRequest for ${job.spec.policy}/${job.spec.rule} (admission request ${job.requestUid}) not created: ${error.message}`,
            );
          },
        ),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<'late'>(
      (resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, budgetMs))),
    );
    const settled = await Promise.race([Promise.all(writes).then(() => 'done' as const), outOfTime]);
    clearTimeout(timer);
    const late = settled === 'late' ? jobs.length - written - failed : 0;
    if (late > 0) {
      this.late += late;
      this.logger.warn(
        `${late} UpdateRequest(s) of admission request ${jobs[0]?.requestUid} not stored within ${Math.round(budgetMs)} ms; answered, still writing`,
      );
    }
    return { written, late, failed };
  }

  stats(): UpdateRequestCreatorStats {
    const { depth, active, accepted, dropped, done, failed } = this.queue.stats();
    // Written out: a spread that gains a key takes V8's slow path, and the drain estimate reads this per review.
    return {
      depth,
      active,
      accepted,
      dropped,
      done,
      failed,
      skipped: this.skipped,
      beforeAnswer: this.beforeAnswer,
      late: this.late,
      lost: this.lost,
    };
  }

  async whenIdle(): Promise<void> {
    await Promise.all([this.queue.whenIdle(), ...this.inFlight]);
  }

  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const queued = await this.queue.drain(timeoutMs);
    return (await settlesWithin([...this.inFlight], Math.max(0, deadline - Date.now()))) && queued;
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  private async create(job: UpdateRequestJob): Promise<void> {
    const created = await this.store(job);
    if (created) await this.markPending(created);
  }

  /**
   * Creates the request under its derived name: the created object, null when it existed already
   * (a retry whose first answer was lost, or the same review twice), undefined when held back.
   */
  private async store(job: UpdateRequestJob): Promise<StoredRequest | null | undefined> {
    if (this.holdsBack(job)) return undefined;
    const key = requestKey(job);
    const labels = { ...updateRequestLabels(job.spec), [UR_REQUEST_KEY_LABEL]: key };
    const body: StoredRequest = {
      apiVersion: 'kyverno.io/v2',
      kind: 'UpdateRequest',
      metadata: { name: `ur-${key}`, namespace: this.options.namespace, labels },
      spec: job.spec,
    };
    return withRetry(async () => {
      try {
        return await this.resources.create(body);
      } catch (error) {
        if (isAlreadyExists(error)) return null;
        throw error;
      }
    }, this.options.retry);
  }

  /** Kyverno's status after a create; best effort (no state reads as Pending to the background controller). */
  private async markPending(created: StoredRequest): Promise<void> {
    if (created.status?.state) return;
    await withRetry(
      () => this.resources.replace({ ...created, status: { state: 'Pending' } }, { subresource: 'status' }),
      this.options.retry,
    ).catch((error: Error) => this.logger.warn(`UpdateRequest ${created.metadata?.name} status: ${error.message}`));
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
}

/** Whether every promise settles within `timeoutMs`. */
async function settlesWithin(work: readonly Promise<unknown>[], timeoutMs: number): Promise<boolean> {
  if (work.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  const all = Promise.allSettled(work).then(() => true);
  const result = await Promise.race([all, timeout]);
  clearTimeout(timer);
  return result;
}

/** A label- and name-safe key for one rule's UpdateRequest for one trigger of one admission request. */
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
