/**
 * One admission review, end to end: parse, take a slot under the concurrency cap (fair between
 * namespaces), pick the policies from one cache snapshot, decide within the deadline the API server
 * gave (counted from the request's arrival, taking fair turns of the thread), answer, count.
 * Anything that goes wrong is answered by the path's failure policy, never by a crash.
 */
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  allow,
  decideWithin,
  deadlineFromTimeout,
  deny,
  FairTurns,
  generatingPolicyRequests,
  timeoutDecision,
  parseAdmissionReview,
  reviewResponse,
  type AdmissionDecision,
  type AdmissionEngine,
  type AdmissionRequest,
  type AdmissionResponse,
  type FailurePolicy,
  type MutatingPolicyPath,
  type ReviewAnswer,
  type ValidatingPolicyPath,
} from '@edict/admission';
import { errorMessage, NO_TRACING, TRACING, type EvaluationDeadline, type Tracing } from '@edict/foundation';
import { AdmissionConfigService, CelPolicyCache, PolicyCache } from '@edict/policy';
import { AfterAdmissionService, type AfterKind } from '../after-admission/after-admission.service';
import { NamespaceLabels, NamespaceReadRefused } from '../cluster/namespace-labels.service';
import { RoleResolverService } from '../cluster/role-resolver.service';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';
import { AdmissionMetrics } from '../metrics/admission-metrics';
import { InstrumentedEngine } from './admission-engine';
import { admissionRequestAttributes, admissionResponseAttributes, admissionSpanName } from './admission-span';
import { FairLimiter } from '@edict/work-queue';
import { ReviewWorkers } from '../workers/review-workers';
import type { ReviewInputs, ReviewKind, ReviewOutcome } from './review-decision';
import { ValidatingPolicyReviews, type ValidatingPolicyInputs } from './validating-policy-review';
import { ImageValidatingPolicyReviews } from './image-validating-policy-review';
import { MutatingPolicyReviews } from './mutating-policy-review';
import { ApiResources, DiscoveryUnavailable } from '@edict/kube';

export type { ReviewKind } from './review-decision';

/** The HTTP answer: an AdmissionReview (200) or a plain error for a body that is not one (400). */

@Injectable()
export class AdmissionService {
  private readonly logger = new Logger('Admission');
  readonly limiter: FairLimiter;
  /** The main thread's turns between the namespaces' evaluations. */
  readonly turns = new FairTurns();

  constructor(
    @Inject(CONTROLLER_CONFIG) private readonly settings: ControllerConfig,
    private readonly cache: PolicyCache,
    private readonly config: AdmissionConfigService,
    private readonly namespaces: NamespaceLabels,
    private readonly engine: InstrumentedEngine,
    private readonly metrics: AdmissionMetrics,
    private readonly roles: RoleResolverService,
    private readonly after: AfterAdmissionService,
    private readonly apiResources: ApiResources,
    private readonly workers: ReviewWorkers,
    private readonly validatingPolicies: ValidatingPolicyReviews,
    private readonly imagePolicies: ImageValidatingPolicyReviews,
    private readonly mutatingPolicies: MutatingPolicyReviews,
    private readonly celPolicies: CelPolicyCache,
    @Optional() @Inject(TRACING) private readonly tracing: Tracing = NO_TRACING,
  ) {
    this.limiter = new FairLimiter({
      maxInFlight: settings.maxInFlight,
      maxInFlightPerTenant: Math.min(settings.maxInFlight, settings.maxInFlightPerNamespace),
      maxQueued: settings.maxQueued,
      maxQueuedPerTenant: Math.min(settings.maxQueued, settings.maxQueuedPerNamespace),
    });
  }

  /**
   * `raw`: the body as received (Fastify's rawBody), handed to a review worker as is. `arrivedAt`:
   * when the request reached the server (performance.now()); the deadline counts from there.
   */
  async review(
    kind: ReviewKind,
    failurePolicy: FailurePolicy,
    body: unknown,
    timeout?: string,
    raw?: Buffer,
    arrivedAt = performance.now(),
  ): Promise<ReviewAnswer> {
    return this.answer(kind, kind, failurePolicy, body, timeout, arrivedAt, (request, deadline, deadlineAt) =>
      this.decide(kind, failurePolicy, request, deadline, deadlineAt, raw),
    );
  }

  /**
   * A review of a `/vpol/...` path: the ValidatingPolicies it serves, decided in-process under the
   * same slots, deadline, failure policy, metrics and after-admission work as the classic paths.
   */
  async reviewValidatingPolicies(
    path: ValidatingPolicyPath,
    body: unknown,
    timeout?: string,
    arrivedAt = performance.now(),
  ): Promise<ReviewAnswer> {
    const failurePolicy = path.failurePolicy ?? 'Fail';
    return this.answer('vpol', 'validate', failurePolicy, body, timeout, arrivedAt, async (request, deadline) => {
      const validatingPolicies = await this.validatingPolicies.decide(
        path,
        request,
        await this.validatingPolicyInputs(request, deadline),
      );
      return { decision: validatingPolicies.decision, policies: [], validatingPolicies };
    });
  }

  /**
   * A review of an `/ivpol/validate/...` or `/ivpol/mutate/...` path: the ImageValidatingPolicies it
   * serves, decided in-process under the same slots, deadline, failure policy and metrics; the
   * validating side's reports and events follow as the vpol ones do.
   */
  async reviewImageValidatingPolicies(
    mode: 'validate' | 'mutate',
    path: ValidatingPolicyPath,
    body: unknown,
    timeout?: string,
    arrivedAt = performance.now(),
  ): Promise<ReviewAnswer> {
    const failurePolicy = path.failurePolicy ?? 'Fail';
    return this.answer(
      'ivpol',
      mode === 'validate' ? 'ivpol' : 'mutate',
      failurePolicy,
      body,
      timeout,
      arrivedAt,
      async (request, deadline) => {
        const inputs = await this.validatingPolicyInputs(request, deadline);
        if (mode === 'mutate')
          return { decision: await this.imagePolicies.mutate(path, request, inputs), policies: [] };
        const imagePolicies = await this.imagePolicies.validate(path, request, inputs);
        return { decision: imagePolicies.decision, policies: [], imagePolicies };
      },
    );
  }

  /**
   * A review of a `/mpol/...` path: the MutatingPolicies it serves, decided in-process under the
   * same slots, deadline, failure policy and metrics; their events and reports follow the answer.
   */
  async reviewMutatingPolicies(
    path: MutatingPolicyPath,
    body: unknown,
    timeout?: string,
    arrivedAt = performance.now(),
  ): Promise<ReviewAnswer> {
    const failurePolicy = path.failurePolicy ?? 'Fail';
    return this.answer('mpol', 'mpol', failurePolicy, body, timeout, arrivedAt, async (request, deadline) => {
      const { policies: _policies, ...inputs } = await this.validatingPolicyInputs(request, deadline);
      const mutatingPolicies = await this.mutatingPolicies.decide(path, request, {
        ...inputs,
        backgroundUsername: this.settings.backgroundUsername,
      });
      return { decision: mutatingPolicies.decision, policies: [], mutatingPolicies };
    });
  }

  /**
   * A review of a `/gpol/<names>` path: always allowed (failure policy Ignore); one `cel-generate`
   * UpdateRequest per GeneratingPolicy the path names that serves the request, stored before the
   * answer as classic generate's are. The background controller evaluates and generates.
   */
  async reviewGeneratingPolicies(
    names: readonly string[],
    body: unknown,
    timeout?: string,
    arrivedAt = performance.now(),
  ): Promise<ReviewAnswer> {
    return this.answer('gpol', 'gpol', 'Ignore', body, timeout, arrivedAt, async (request) => ({
      decision: allow(),
      policies: [],
      generatingPolicyRequests: generatingPolicyRequests(
        request,
        this.celPolicies.generatingPolicies(),
        { names },
        {
          roles: this.roles.rolesFor(request.userInfo ?? {}),
          ...(this.settings.backgroundUsername ? { backgroundUsername: this.settings.backgroundUsername } : {}),
        },
      ),
    }));
  }

  /** What a vpol decision reads besides the request: the cache's policies, the config, the namespace, roles. */
  async validatingPolicyInputs(
    request: AdmissionRequest,
    deadline?: EvaluationDeadline,
    metered = true,
  ): Promise<ValidatingPolicyInputs> {
    const namespaceObject =
      request.namespace && request.kind.kind !== 'Namespace'
        ? ((await this.namespaces.namespaceObject(request.namespace)) ?? null)
        : null;
    return {
      policies: this.validatingPolicies.policies(),
      config: this.config.current(),
      namespaceLabels: await this.namespaces.labelsForRequest(request),
      namespaceObject,
      roles: this.roles.rolesFor(request.userInfo ?? {}),
      topLevelKind: request.subResource
        ? await this.apiResources.parentKindOf(request.resource, request.subResource)
        : undefined,
      admissionReports: this.settings.admissionReports,
      deadline,
      metered,
    };
  }

  /**
   * One review, end to end, whatever decides it: parse, a slot, the deadline, the answer by failure
   * policy when anything goes wrong, the request metric, UpdateRequests and after-admission work.
   */
  private async answer(
    label: string,
    afterKind: AfterKind,
    failurePolicy: FailurePolicy,
    body: unknown,
    timeout: string | undefined,
    arrivedAt: number,
    decide: (request: AdmissionRequest, deadline: EvaluationDeadline, deadlineAt: number) => Promise<ReviewOutcome>,
  ): Promise<ReviewAnswer> {
    const parsed = parseAdmissionReview(body);
    if (!parsed.ok) return { status: 400, body: { message: parsed.message } };
    const request = parsed.review.request;
    if (!this.tracing.enabled) {
      return this.answerRequest(label, afterKind, failurePolicy, request, timeout, arrivedAt, decide);
    }
    return this.tracing.span(admissionSpanName(request), admissionRequestAttributes(request), async (span) => {
      // Bound to this span: the limiter may run the decision later, from another review's turn.
      const answer = await this.answerRequest(
        label,
        afterKind,
        failurePolicy,
        request,
        timeout,
        arrivedAt,
        this.tracing.bind(decide),
      );
      span.setAttributes(admissionResponseAttributes((answer.body as { response?: AdmissionResponse }).response));
      return answer;
    });
  }

  private async answerRequest(
    label: string,
    afterKind: AfterKind,
    failurePolicy: FailurePolicy,
    request: AdmissionRequest,
    timeout: string | undefined,
    arrivedAt: number,
    decide: (request: AdmissionRequest, deadline: EvaluationDeadline, deadlineAt: number) => Promise<ReviewOutcome>,
  ): Promise<ReviewAnswer> {
    const totalMs = deadlineFromTimeout(timeout);
    const deadlineAt = arrivedAt + totalMs;
    const tenant = reviewTenant(request);

    let decision: AdmissionDecision;
    let outcome: ReviewOutcome | undefined;
    try {
      // Past its deadline before (or while) it waited for a slot: the API server has given up or is
      // about to, so it is answered at once by the failure policy, never evaluated.
      const slot =
        deadlineAt <= performance.now()
          ? { admitted: true as const, value: { decision: timeoutDecision(failurePolicy, totalMs), timedOut: true } }
          : await this.limiter.run(
              tenant,
              () =>
                decideWithin(
                  (deadline) => decide(request, deadline, deadlineAt),
                  deadlineAt - performance.now(),
                  failurePolicy,
                  { deadline: this.turns.deadline(deadlineAt, tenant), totalMs },
                ),
              deadlineAt - performance.now(),
            );
      decision = slot.admitted ? slot.value.decision : overloaded(failurePolicy, slot.reason);
      if (slot.admitted) outcome = slot.value.outcome;
    } catch (error) {
      // Refused namespace lookups are logged by NamespaceLabels, together: one line per review would flood.
      if (error instanceof DiscoveryUnavailable) this.logger.warn(`${label} review ${request.uid}: ${error.message}`);
      else if (!refusedLookup(error))
        this.logger.error(`${label} review ${request.uid} failed: ${(error as Error).stack ?? String(error)}`);
      decision = failed(failurePolicy, error);
    }
    this.metrics.recordReview(
      { kind: request.kind.kind, namespace: request.namespace ?? '', operation: request.operation },
      decision.allowed,
      (performance.now() - arrivedAt) / 1000,
    );
    // The triggers' UpdateRequests are stored before answering, with what is left of the deadline.
    await this.after.writeUpdateRequests(request, outcome, deadlineAt - performance.now());
    // Reports, synchronize requests and events: queued now, done after the answer is on its way. A review
    // that leaves work first waits while the backlog could not drain on shutdown (bounded by its
    // timeout); its work is queued after the wait, so none of it (an UpdateRequest restoring a
    // synchronized copy) runs before the API server has stored the change it answers.
    if (outcome && this.after.hasWork(afterKind, request, outcome)) {
      await this.after.holdForBacklog(deadlineAt - performance.now());
      this.after.schedule(afterKind, request, outcome);
    }
    return { status: 200, body: reviewResponse(request.uid, decision) };
  }

  /**
   * Everything a decision reads besides the request, taken once per review: one policy snapshot,
   * the ConfigMap's settings, namespace labels, the user's roles, and for a subresource request the
   * kind it is about. The admin `evaluate` endpoint takes the same inputs with its own engine.
   */
  async inputsFor(
    request: AdmissionRequest,
    engine: AdmissionEngine = this.engine,
    deadline?: EvaluationDeadline,
  ): Promise<ReviewInputs> {
    // Every key written out, once: a spread that gains keys takes V8's slow path, on every review.
    return {
      snapshot: this.cache.snapshot(),
      config: this.config.current(),
      engine,
      namespaceLabels: await this.namespaces.labelsForRequest(request),
      roles: this.roles.rolesFor(request.userInfo ?? {}),
      backgroundUsername: this.settings.backgroundUsername,
      admissionReports: this.settings.admissionReports,
      // A subresource review without its parent's kind fails (by the failure policy), never falls back to its own.
      topLevelKind: request.subResource
        ? await this.apiResources.parentKindOf(request.resource, request.subResource)
        : undefined,
      deadline,
      auditDeadline: this.turns.turnsOnly(reviewTenant(request)),
    };
  }

  private async decide(
    kind: ReviewKind,
    failurePolicy: FailurePolicy,
    request: AdmissionRequest,
    deadline: EvaluationDeadline,
    deadlineAt: number,
    raw: Buffer | undefined,
  ): Promise<ReviewOutcome> {
    const inputs = await this.inputsFor(request, this.engine, deadline);
    return this.workers.decide(kind, failurePolicy, request, inputs, deadlineAt, raw);
  }
}

/**
 * Whose share of the slots and turns a review uses: its namespace, whose Policies are the only
 * namespaced ones it runs; cluster-scoped requests (ClusterPolicies only) are one tenant.
 */
export function reviewTenant(request: AdmissionRequest): string {
  return request.namespace ?? '';
}

/** Too busy to evaluate: what the API server would do had the call failed (Fail denies, Ignore admits). */
function overloaded(failurePolicy: FailurePolicy, reason: 'queue-full' | 'queue-timeout'): AdmissionDecision {
  if (failurePolicy === 'Ignore') return allow();
  const why =
    reason === 'queue-full' ? 'too many reviews are waiting' : 'no evaluation slot freed up before the deadline';
  return deny(
    `the admission controller is overloaded (${why}); the request is denied because the webhook's failure policy is Fail`,
  );
}

function failed(failurePolicy: FailurePolicy, error: unknown): AdmissionDecision {
  if (failurePolicy === 'Ignore') return allow();
  if (refusedLookup(error)) return deny(error.message);
  return deny(`internal error evaluating policies: ${errorMessage(error)}`);
}

/** A lookup refused by its budget or by discovery: a decision to fail closed, not a fault; its message says why. */
function refusedLookup(error: unknown): error is DiscoveryUnavailable | NamespaceReadRefused {
  return error instanceof DiscoveryUnavailable || error instanceof NamespaceReadRefused;
}
