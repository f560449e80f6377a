/**
 * What Kyverno does after answering an admission review, off the response path: the audit-only
 * policies (`validation.after()`), their results and the answered ones into an admission EphemeralReport,
 * UpdateRequests for a synchronized downstream's changes, and Events for violations — also for
 * blocked requests. The UpdateRequests of generate and mutate-existing triggers are not among them:
 * they are stored before the answer (`writeUpdateRequests`), so no queue limit or crash loses them. Each review is one job in a bounded queue (Kyverno's audit pool, capacity
 * `auditQueueSize`): a full queue drops the job and counts it, so a storm never slows the webhook.
 * Dry runs leave no trace (the webhooks declare sideEffects NoneOnDryRun).
 */
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import {
  VALIDATING_POLICY_SOURCE,
  IMAGE_VALIDATING_POLICY_SOURCE,
  MUTATING_POLICY_SOURCE,
  validatingPolicyKey,
  type AdmissionRequest,
  type ReportResult,
  type ValidatingPolicyOutcome,
  type ImagePolicyOutcome,
  type MutatingPolicyOutcome,
} from '@edict/admission';
import { hasVerifyImages, type PolicyResponse } from '@edict/engine';
import { EventRecorder, KubeEventSink, KubeResources } from '@edict/kube';
import { AdmissionConfigService, PolicyCache } from '@edict/policy';
import {
  AdmissionReportQueue,
  ReportsMetrics,
  admissionReportInput,
  allowedResults,
  resourceHash,
  type ReportPolicy,
} from '@edict/reports';
import { BoundedWorkQueue } from '@edict/work-queue';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';
import type { ReviewKind, ReviewOutcome } from '../webhooks/review-decision';
import { registerAfterAdmissionMetrics, type AfterAdmissionFigures } from './after-admission-metrics';
import { admissionEvents, type PolicyIdentity } from './admission-events';
import { AuditBackpressure } from './audit-backpressure';
import { DrainMeter, type DrainPart } from './drain-meter';
import { SynchronizeRequestsService } from './synchronize-requests.service';
import { UpdateRequestCount } from './update-request-count';
import { UpdateRequestCreator } from './update-request-creator';

/** Kyverno's event source for the admission controller (`reportingController`). */
export const ADMISSION_EVENT_SOURCE = 'kyverno-admission';

/**
 * Which webhook answered: a classic path, a `/vpol/...` one (ValidatingPolicies), an
 * `/ivpol/validate/...` one, an `/mpol/...` one (MutatingPolicies) or a `/gpol/...` one (GeneratingPolicies).
 */
export type AfterKind = ReviewKind | 'vpol' | 'ivpol' | 'mpol' | 'gpol';

/** What `schedule` did with a review's after-admission work. */
export type Scheduled = 'queued' | 'nothing' | 'dropped';

interface AfterJob {
  kind: AfterKind;
  request: AdmissionRequest;
  outcome: ReviewOutcome;
}

@Injectable()
export class AfterAdmissionService implements OnApplicationShutdown {
  private readonly logger = new Logger('AfterAdmission');
  private readonly queue: BoundedWorkQueue<AfterJob>;
  readonly updateRequests: UpdateRequestCreator;
  readonly events: EventRecorder;
  readonly meter: DrainMeter;
  readonly backpressure: AuditBackpressure;

  constructor(
    @Inject(CONTROLLER_CONFIG) private readonly settings: ControllerConfig,
    private readonly cache: PolicyCache,
    private readonly reports: AdmissionReportQueue,
    resources: KubeResources,
    metrics: ReportsMetrics,
    private readonly synchronize: SynchronizeRequestsService,
    private readonly config: AdmissionConfigService,
    updateRequestCount: UpdateRequestCount,
  ) {
    this.queue = new BoundedWorkQueue<AfterJob>({
      capacity: settings.auditQueueSize,
      workers: settings.auditWorkers,
      handler: (job) => this.run(job),
      onError: (error, job) =>
        this.logger.warn(`after-admission work for ${job.request.uid} failed: ${(error as Error).message}`),
    });
    this.updateRequests = new UpdateRequestCreator(resources, {
      namespace: settings.namespace,
      queueSize: settings.auditQueueSize,
      backPressure: {
        count: () => updateRequestCount.current(),
        threshold: () => config.current().updateRequestThreshold,
      },
    });
    this.events = new EventRecorder(new KubeEventSink(resources), {
      reportingController: ADMISSION_EVENT_SOURCE,
      reportingInstance: `${ADMISSION_EVENT_SOURCE}-${hostname()}`,
      maxPending: settings.maxQueuedEvents,
      onError: (error, event) =>
        this.logger.warn(
          `event ${event.reason} on ${event.regarding.kind} ${event.regarding.name}: ${(error as Error).message}`,
        ),
    });
    this.meter = new DrainMeter(this.drainParts(), { now: () => performance.now() });
    this.backpressure = new AuditBackpressure(() => this.meter.estimate(), {
      enabled: settings.auditBackpressure,
      targetMs: settings.drainTimeoutMs / 2,
      // A quarter of the webhook timeout: the review may have waited unseen before it reached us.
      maxHoldMs: (settings.webhookTimeoutSeconds * 1000) / 4,
    });
    registerAfterAdmissionMetrics(metrics.registry, () => this.figures());
  }

  /** Whether a decided review leaves work for after its answer (reports, UpdateRequests, events). */
  hasWork(kind: AfterKind, request: AdmissionRequest, outcome: ReviewOutcome): boolean {
    if (request.dryRun === true) return false;
    if (outcome.validatingPolicies) return outcome.validatingPolicies.evaluations.length > 0;
    if (outcome.imagePolicies) return outcome.imagePolicies.evaluations.length > 0;
    if (outcome.mutatingPolicies) return outcome.mutatingPolicies.evaluations.length > 0;
    const mutated = outcome.mutation?.responses.some((response) => response.rules.length > 0) === true;
    return outcome.validation !== undefined || mutated || this.synchronizes(kind, request, outcome);
  }

  /**
   * Stores the UpdateRequests of an admitted review's generate and mutate-existing triggers (classic
   * rules, or MutatingPolicies with mutateExisting on an `/mpol/...` path) before
   * it is answered, within `budgetMs` (its time left): once answered, the trigger's request survives a
   * dropped job and a killed process. Dry runs and denied reviews store none.
   */
  async writeUpdateRequests(
    request: AdmissionRequest,
    outcome: ReviewOutcome | undefined,
    budgetMs: number,
  ): Promise<void> {
    const specs =
      outcome?.generatingPolicyRequests ??
      outcome?.validation?.updateRequests ??
      outcome?.mutatingPolicies?.updateRequests;
    if (!specs || specs.length === 0 || request.dryRun === true || !outcome?.decision.allowed) return;
    await this.updateRequests.writeBeforeAnswer(
      specs.map((spec) => ({ requestUid: request.uid, spec })),
      budgetMs,
    );
  }

  /** Hands a decided review over; returns at once. */
  schedule(kind: AfterKind, request: AdmissionRequest, outcome: ReviewOutcome | undefined): Scheduled {
    if (!outcome || !this.hasWork(kind, request, outcome)) return 'nothing';
    return this.queue.offer({ kind, request, outcome }) ? 'queued' : 'dropped';
  }

  /**
   * For a review about to queue work: waits while the backlog could not drain within half the
   * drain timeout (at most half of `remainingMs`, the review's time left); resolves with the ms waited.
   */
  holdForBacklog(remainingMs: number): Promise<number> {
    return this.backpressure.hold(remainingMs);
  }

  /** What is still queued, part by part, as the shutdown log names it. */
  backlog(): string {
    const parts = [
      ...this.drainParts().map((part) => `${part.queued()} ${part.name}`),
      `${this.events.stats().pending} events`,
    ];
    return parts.join(', ');
  }

  figures(): AfterAdmissionFigures {
    const audit = this.queue.stats();
    const estimate = this.meter.estimate();
    const held = this.backpressure.stats();
    const urs = this.updateRequests.stats();
    const events = this.events.stats();
    return {
      auditQueue: { depth: audit.depth + audit.active, dropped: audit.dropped },
      updateRequests: {
        depth: urs.depth + urs.active,
        dropped: urs.dropped,
        skipped: urs.skipped,
        failed: urs.failed + urs.lost,
        done: urs.done + urs.beforeAnswer,
        beforeAnswer: urs.beforeAnswer,
        late: urs.late,
      },
      events: {
        pending: events.pending,
        dropped: events.dropped,
        written: events.written,
        failed: events.failed,
        aggregated: events.aggregated,
      },
      backpressure: {
        waiting: held.waiting,
        held: held.held,
        releasedAtBound: held.releasedAtBound,
        heldSeconds: held.heldMs / 1000,
        targetSeconds: this.backpressure.enabled ? this.backpressure.targetMs / 1000 : 0,
        estimatedDrainSeconds: estimate.ms / 1000,
        parts: estimate.parts.map((part) => ({ name: part.name, seconds: part.ms / 1000 })),
      },
    };
  }

  /** Resolves when everything scheduled so far has been handed on and written (tests). */
  async whenIdle(): Promise<void> {
    await this.queue.whenIdle();
    await Promise.all([this.reports.whenIdle(), this.updateRequests.whenIdle(), this.events.flush(5_000)]);
  }

  /**
   * Shutdown, after the last review was answered: finish the audit jobs, then write the reports and
   * UpdateRequests they produced, within `timeoutMs`; true when none was left. Events are written
   * meanwhile but not waited for: they are rate-limited (10/s), so a backlog of them would hold every
   * stop for the whole timeout, and like Kyverno's they are best effort (`backlog()` names those left).
   */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const left = () => Math.max(0, deadline - Date.now());
    void this.events.flush(0);
    const audits = await this.queue.drain(left());
    const [reports, urs] = await Promise.all([this.reports.drain(left()), this.updateRequests.drain(left())]);
    return audits && reports && urs;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.drain(0);
    await this.updateRequests.drain(0);
    await this.events.stop();
  }

  /**
   * The queues a shutdown drains, in the order it drains them. Each queued audit writes (at most)
   * one admission report, so the report writes count the audits still to come.
   */
  private drainParts(): DrainPart[] {
    const pendingOf = (stats: { depth: number; active: number }) => stats.depth + stats.active;
    const finishedOf = (stats: { done: number; failed: number }) => stats.done + stats.failed;
    return [
      { name: 'audits', queued: () => pendingOf(this.queue.stats()), finished: () => finishedOf(this.queue.stats()) },
      {
        name: 'report writes',
        queued: () => pendingOf(this.reports.stats()),
        incoming: () => pendingOf(this.queue.stats()),
        finished: () => finishedOf(this.reports.stats()),
      },
      {
        name: 'update requests',
        queued: () => pendingOf(this.updateRequests.stats()),
        finished: () => finishedOf(this.updateRequests.stats()),
      },
    ];
  }

  /** An admitted change to a generated object or a clone source (synchronize), seen by the validating webhook. */
  private synchronizes(kind: AfterKind, request: AdmissionRequest, outcome: ReviewOutcome): boolean {
    return kind === 'validate' && outcome.decision.allowed && this.synchronize.concerns(request);
  }

  private async run({ kind, request, outcome }: AfterJob): Promise<void> {
    // Let the answer go out first: the job may start in the same tick the review was decided.
    await new Promise((resolve) => setImmediate(resolve));
    if (this.synchronizes(kind, request, outcome)) {
      for (const spec of await this.synchronize.specsFor(request))
        this.updateRequests.submit({ requestUid: request.uid, spec });
    }
    const { validation, mutation } = outcome;
    if (outcome.mutatingPolicies) {
      // Kyverno's mpol handler: an event per policy that applied (never as blocked: a mutation does
      // not refuse by itself), and its results in the admission report.
      const mutating = outcome.mutatingPolicies;
      const responses = mutating.evaluations.map((evaluation) => evaluation.response);
      this.emit(request, responses, false, celPolicyIdentity(mutating), () => true);
      this.report(request, mutating.reportResults);
      return;
    }
    const celPolicies = outcome.validatingPolicies ?? outcome.imagePolicies;
    if (celPolicies) {
      // Kyverno's vpol and ivpol handlers: events for every policy that applied (blocked or not), reports when admitted.
      const responses = celPolicies.evaluations.map((evaluation) => evaluation.response);
      this.emit(request, responses, celPolicies.blocked, celPolicyIdentity(celPolicies));
      this.report(request, celPolicies.reportResults);
      return;
    }
    if (mutation) {
      this.report(request, mutation.reportResults);
      // Kyverno's mutation handler emits its events too (never blocked: a mutation does not refuse).
      this.emit(request, mutation.responses, false);
    }
    if (!validation) return;
    if (!validation.decision.allowed) {
      this.emit(request, validation.responses, true);
      return;
    }
    if (!validation.after) {
      this.emit(request, validation.responses, false);
      return;
    }
    const after = await validation.after();
    this.emit(request, [...validation.responses, ...after.auditResponses], false);
    this.report(request, after.reportResults, after.resourceHash);
  }

  private emit(
    request: AdmissionRequest,
    responses: readonly PolicyResponse[],
    blocked: boolean,
    identity?: (response: PolicyResponse) => PolicyIdentity | undefined,
    onlyMutates?: (response: PolicyResponse) => boolean,
  ): void {
    const uid = (request.object as { metadata?: { uid?: string } } | null | undefined)?.metadata?.uid;
    const snapshot = this.cache.snapshot();
    const { generateSuccessEvents, successEventActions } = this.config.current();
    const events = admissionEvents(responses, {
      blocked,
      omit: this.settings.omitEvents,
      successEvents: { enabled: generateSuccessEvents, actions: successEventActions },
      ...(uid ? { resourceUid: uid } : {}),
      policyIdentity:
        identity ??
        ((response) => {
          const cached = snapshot.policies.get(policyKey(response));
          return cached ? { uid: cached.uid, resourceVersion: cached.resourceVersion } : undefined;
        }),
      onlyMutates:
        onlyMutates ??
        ((response) => {
          const rules = snapshot.policies.get(policyKey(response))?.compiled.policy.spec.rules ?? [];
          return rules.some((rule) => rule.mutate) && !rules.some((rule) => rule.validate || hasVerifyImages(rule));
        }),
    });
    for (const event of events) this.events.record(event);
  }

  private report(request: AdmissionRequest, all: readonly ReportResult[], hash?: string): void {
    // Kyverno's --allowedResults: the other result types are left out of the admission report.
    const results = allowedResults(all, this.settings.allowedResults);
    if (results.length === 0) return;
    const snapshot = this.cache.snapshot();
    const input = admissionReportInput(
      {
        uid: request.uid,
        operation: request.operation,
        resource: {
          group: request.resource.group ?? '',
          version: request.resource.version,
          resource: request.resource.resource,
        },
      },
      hash ?? resourceHash((request.object ?? undefined) as Record<string, unknown> | undefined),
      results,
      (key, source): ReportPolicy | undefined => {
        if (source === VALIDATING_POLICY_SOURCE) return validatingPolicyOf(key);
        if (source === MUTATING_POLICY_SOURCE) return mutatingPolicyOf(key);
        // ImageValidatingPolicies are named from their key (never a classic policy of the same name).
        if (source === IMAGE_VALIDATING_POLICY_SOURCE) return undefined;
        const cached = snapshot.policies.get(key);
        if (!cached) return undefined;
        return {
          kind: cached.kind,
          name: cached.name,
          ...(cached.namespace ? { namespace: cached.namespace } : {}),
          ...(cached.resourceVersion ? { resourceVersion: cached.resourceVersion } : {}),
        };
      },
    );
    if (input) this.reports.submit(input);
  }
}

/** The uid and resourceVersion of the ValidatingPolicies a vpol review evaluated, for their events. */
function celPolicyIdentity(
  outcome: ValidatingPolicyOutcome | ImagePolicyOutcome | MutatingPolicyOutcome,
): (response: PolicyResponse) => PolicyIdentity | undefined {
  const byKey = new Map<string, PolicyIdentity>();
  for (const { compiled } of outcome.evaluations) {
    const metadata = compiled.policy.metadata ?? {};
    byKey.set(`${compiled.kind}/${validatingPolicyKey(compiled)}`, {
      ...(metadata.uid ? { uid: metadata.uid } : {}),
      ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}),
    });
  }
  return (response) => byKey.get(`${response.policy.kind}/${policyKey(response)}`);
}

/** The report label of a ValidatingPolicy named by its report key (`name` or `namespace/name`). */
function validatingPolicyOf(key: string): ReportPolicy {
  const slash = key.indexOf('/');
  return slash < 0
    ? { kind: 'ValidatingPolicy', name: key }
    : { kind: 'NamespacedValidatingPolicy', namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The report label of a MutatingPolicy named by its report key (`name` or `namespace/name`). */
function mutatingPolicyOf(key: string): ReportPolicy {
  const slash = key.indexOf('/');
  return slash < 0
    ? { kind: 'MutatingPolicy', name: key }
    : { kind: 'NamespacedMutatingPolicy', namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The policy cache's key of a response's policy (`namespace/name` for a Policy). */
function policyKey(response: PolicyResponse): string {
  return response.policy.namespace ? `${response.policy.namespace}/${response.policy.name}` : response.policy.name;
}
