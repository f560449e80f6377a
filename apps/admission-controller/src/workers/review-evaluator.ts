/**
 * The worker side: a PolicyStore mirrored from the main thread's cache, and the same decision the
 * main thread would make (`decideReview`), with an engine that has no cluster access. Any read of
 * cluster-backed context marks the review `inProcess` and the main thread evaluates it instead, so
 * a worker never answers with less context than the in-process path had.
 */
import { Engine, type CompiledPolicy, type PolicyResponse } from '@edict/engine';
import { EvaluationDeadlineExceeded, SpanRecorder, errorMessage } from '@edict/foundation';
import {
  FairTurns,
  type AdmissionConfig,
  type AdmissionEngine,
  type AdmissionRequest,
  type AfterAdmission,
} from '@edict/admission';
import { PolicyStore } from '@edict/policy';
import { resourceHash } from '@edict/reports';
import { decideReview, type ReviewOutcome } from '../webhooks/review-decision';
import type { PolicyResult } from '../metrics/admission-metrics';
import { applyPolicySync } from './policy-sync';
import type { FromWorker, PolicyEvaluation, ReviewJob, ToWorker, WireOutcome } from './review-protocol';

/** What one review's evaluations did: their metrics, and whether one reached for main-thread context. */
interface ReviewTrace {
  contextNeeded: boolean;
  evaluations: PolicyEvaluation[];
  /** The engine's spans, when the main thread traces the review. */
  readonly spans?: SpanRecorder;
}

/** Audits a worker holds back for its decisions; beyond it an audit is refused (and logged by the main thread). */
const MAX_QUEUED_AUDITS = 10_000;

export class ReviewEvaluator {
  private readonly store = new PolicyStore();
  private generation = 0;
  private config?: AdmissionConfig;
  private readonly audits: Array<() => Promise<void>> = [];
  private auditing = false;
  /** Reviews in this worker interleave, taking turns fairly between namespaces. */
  private readonly turns = new FairTurns();

  constructor(private readonly post: (message: FromWorker) => void) {
    post({ type: 'ready' });
  }

  handle(message: ToWorker): void {
    if (message.type === 'policies') {
      applyPolicySync(this.store, message.sync);
      this.generation = message.sync.generation;
    } else if (message.type === 'config') this.config = message.config;
    else void this.review(message);
  }

  private async review(job: ReviewJob): Promise<void> {
    const { id } = job;
    const trace: ReviewTrace = {
      contextNeeded: false,
      evaluations: [],
      ...(job.trace ? { spans: new SpanRecorder() } : {}),
    };
    let request: AdmissionRequest;
    let outcome: ReviewOutcome;
    try {
      request = (JSON.parse(job.review) as { request: AdmissionRequest }).request;
      const config = this.config;
      if (!config || this.generation < job.generation)
        throw new Error(`review worker is behind the policy cache (generation ${this.generation} < ${job.generation})`);
      outcome = await decideReview(job.kind, job.failurePolicy, request, {
        snapshot: this.store.snapshot(),
        config,
        engine: this.engine(config, trace),
        namespaceLabels: job.namespaceLabels,
        roles: job.roles,
        backgroundUsername: job.backgroundUsername,
        admissionReports: job.admissionReports,
        ...(job.topLevelKind ? { topLevelKind: job.topLevelKind } : {}),
        deadline: this.turns.deadline(job.deadlineEpochMs - performance.timeOrigin, request.namespace ?? ''),
        auditDeadline: this.turns.turnsOnly(request.namespace ?? ''),
      });
    } catch (error) {
      const deadline = error instanceof EvaluationDeadlineExceeded;
      this.post({ type: 'failed', id, message: errorMessage(error), deadline });
      return;
    }
    if (trace.contextNeeded) return this.post({ type: 'decided', id, inProcess: true });
    const after = request.dryRun === true ? undefined : outcome.validation?.after;
    this.post({
      type: 'decided',
      id,
      outcome: wireOutcome(outcome, after !== undefined),
      evaluations: trace.evaluations,
      ...(trace.spans ? { spans: trace.spans.take() } : {}),
    });
    if (!after) return;
    if (this.audits.length >= MAX_QUEUED_AUDITS) {
      this.post({ type: 'after', id, error: `the review worker's audit backlog is full (${MAX_QUEUED_AUDITS})` });
      return;
    }
    this.audits.push(() => this.audit(id, request, after, trace));
    this.runAudits();
  }

  /**
   * Audits wait for the decisions: one runs per event-loop turn, after the reviews that arrived, as
   * the in-process path answers first and audits from its queue.
   */
  private runAudits(): void {
    if (this.auditing) return;
    this.auditing = true;
    setImmediate(async () => {
      await this.audits.shift()?.();
      this.auditing = false;
      if (this.audits.length > 0) this.runAudits();
    });
  }

  private async audit(
    id: number,
    request: AdmissionRequest,
    after: () => Promise<AfterAdmission>,
    trace: ReviewTrace,
  ): Promise<void> {
    trace.contextNeeded = false;
    trace.evaluations = [];
    trace.spans?.take();
    try {
      const result = await after();
      if (trace.contextNeeded) this.post({ type: 'after', id, inProcess: true });
      else {
        // The report's resource hash, off the main thread too (it walks the whole object).
        if (result.reportResults.length > 0) result.resourceHash = resourceHash(request.object ?? undefined);
        this.post({
          type: 'after',
          id,
          after: result,
          evaluations: trace.evaluations,
          ...(trace.spans ? { spans: trace.spans.take() } : {}),
        });
      }
    } catch (error) {
      this.post({ type: 'after', id, error: errorMessage(error) });
    }
  }

  /** One engine per review, so context reads and timings belong to it even when reviews interleave. */
  private engine(config: AdmissionConfig, trace: ReviewTrace): AdmissionEngine {
    const unavailable = (): never => {
      trace.contextNeeded = true;
      throw new Error('context is read on the main thread');
    };
    const engine = new Engine({
      exceptions: () => this.store.snapshot().exceptions,
      limits: () => config.limits,
      loaders: {
        configMap: unavailable,
        apiCall: unavailable,
        globalReference: unavailable,
        imageRegistry: unavailable,
        // Registry reads for verifyImages happen on the main thread, like every context read.
        get imageVerification() {
          return unavailable();
        },
      },
      resources: { get: unavailable, list: unavailable, namespaced: unavailable },
      accessReviewer: { review: unavailable },
      ...(trace.spans ? { tracing: trace.spans } : {}),
    });
    const timed =
      <R extends PolicyResponse>(evaluate: (compiled: CompiledPolicy, ...rest: never[]) => Promise<R>) =>
      async (compiled: CompiledPolicy, ...rest: never[]): Promise<R> => {
        const started = performance.now();
        const response = await evaluate(compiled, ...rest);
        trace.evaluations.push({
          response: policyResult(response),
          background: compiled.policy.spec.background !== false,
          seconds: (performance.now() - started) / 1000,
        });
        return response;
      };
    return {
      validate: timed(engine.validate.bind(engine)),
      mutate: timed(engine.mutate.bind(engine)),
      verifyImages: timed(engine.verifyImages.bind(engine)),
      generate: engine.generate.bind(engine),
    } as AdmissionEngine;
  }
}

function wireOutcome(outcome: ReviewOutcome, hasAfter: boolean): WireOutcome {
  const { decision, policies, validation, mutation } = outcome;
  return {
    decision,
    policies: policies.map((policy) => policy.key),
    ...(validation ? { validation: { ...withoutAfter(validation), hasAfter } } : {}),
    ...(mutation ? { mutation } : {}),
  };
}

function withoutAfter<T extends { after?: unknown }>(value: T): Omit<T, 'after'> {
  const { after: _after, ...rest } = value;
  return rest;
}

/** The metric labels of a response, without the resources it carries. */
function policyResult(response: PolicyResponse): PolicyResult {
  return {
    policy: response.policy,
    validationFailureAction: response.validationFailureAction,
    rules: response.rules.map(({ name, type, status, failureAction }) => ({ name, type, status, failureAction })),
  };
}
