/**
 * Review workers: the engine evaluation of reviews and of their audits spread over worker threads,
 * so the webhook uses every core of its pod while the main thread keeps HTTP, TLS, context reads
 * and the after-admission writes.
 *
 * Design. Threads, not processes (a process adds a pipe and a serialisation on each side). A review
 * crosses as the body's text, which the worker parses: posting a string is a copy (3 µs for the
 * bench's 9 KB Pod review), while a structured clone of the parsed request costs the main thread
 * 40 µs to write and the worker 100 µs to read, twice a JSON.parse. Each worker
 * keeps its own PolicyStore, fed with what changed between the main cache's snapshots (policySync)
 * before any review that needs it; a port delivers in order, so a review always meets at least the
 * snapshot the main thread took for it and no waiting is needed. The main thread reads what is
 * cheap and per request (namespace labels, roles, the top-level kind, the admission config) and
 * sends it along; a review whose rules read cluster-backed context (ConfigMaps, API calls, global
 * context, image data, cluster resources, access reviews) comes back `inProcess` and is evaluated
 * on the main thread, as are all reviews when no worker is up. Deadlines stay the main thread's
 * (decideWithin's timer answers by failure policy); a worker still busy with a review well past
 * its deadline is replaced, and so is one that crashed: its reviews are answered by failure policy
 * (their decisions reject). `close` lets the in-flight reviews and audits finish first.
 * With 0 workers every review is evaluated in-process: the reference path.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { AdmissionConfig, AdmissionRequest, AfterAdmission, FailurePolicy } from '@edict/admission';
import { type CompiledPolicy } from '@edict/engine';
import { EvaluationDeadlineExceeded, NO_TRACING, type RecordedSpan, type Tracing } from '@edict/foundation';
import { PolicySnapshot, type PolicyCache } from '@edict/policy';
import type { RequestFacts } from '../metrics/admission-metrics';
import { decideReview, type ReviewInputs, type ReviewKind, type ReviewOutcome } from '../webhooks/review-decision';
import { MessageBatch } from './message-batch';
import { policySync } from './policy-sync';
import {
  decodeFromWorker,
  type FromWorker,
  type PolicyEvaluation,
  type ToWorker,
  type WireOutcome,
} from './review-protocol';

/** How long past its deadline a worker may hold a review before it is replaced. */
const STUCK_GRACE_MS = 1_000;
/** Pause before a crashed worker is replaced (reviews meanwhile go to the others, or in-process). */
const RESPAWN_DELAY_MS = 200;

export interface ReviewWorkersOptions {
  readonly size: number;
  /** The worker's entry (default: the bundled review-worker.js, or the sources under a test runner). */
  readonly script?: WorkerScript;
  /** Where each policy evaluation's metrics go (Kyverno's policy results and durations). */
  readonly recordPolicy: (evaluation: PolicyEvaluation, facts: RequestFacts) => void;
  /**
   * The controller's tracing: when on, a worker records its policy and rule spans and they are
   * replayed under the review's span, as the in-process path records them.
   */
  readonly tracing?: Tracing;
}

export interface WorkerScript {
  readonly path: string;
  readonly workerData?: unknown;
}

interface Slot {
  readonly worker: Worker;
  readonly outbox: MessageBatch<ToWorker>;
  readonly reviews: Set<number>;
  /** Loaded: until then reviews go to the other workers (or stay in-process). */
  ready: boolean;
  /** Set once the thread is gone (crashed, replaced or closed). */
  gone: boolean;
}

interface Pending {
  readonly slot: Slot;
  readonly kind: ReviewKind;
  readonly failurePolicy: FailurePolicy;
  readonly request: AdmissionRequest;
  readonly inputs: ReviewInputs;
  readonly facts: RequestFacts;
  readonly stuck: NodeJS.Timeout;
  /** Records the worker's spans under the review's span (bound when the review was sent). */
  readonly replay?: (spans: readonly RecordedSpan[]) => void;
  decided?: Settle<ReviewOutcome>;
  after?: Settle<AfterAdmission>;
}

interface Settle<T> {
  resolve(value: T | Promise<T>): void;
  reject(error: Error): void;
}

type PolicySource = Pick<PolicyCache, 'snapshot' | 'settings' | 'onChange'>;

export class ReviewWorkers implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ReviewWorkers');
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly idle: Array<() => void> = [];
  private readonly script: WorkerScript;
  private readonly answered = { byWorkers: 0, inProcess: 0 };
  private nextId = 1;
  private synced: PolicySnapshot = PolicySnapshot.empty();
  private config?: AdmissionConfig;
  private unsubscribe?: () => void;
  private closed = false;

  constructor(
    private readonly options: ReviewWorkersOptions,
    private readonly cache: PolicySource,
  ) {
    this.script = options.script ?? defaultScript();
  }

  onModuleInit(): void {
    this.start();
  }

  /** The controller's stop drains them first (bootstrap); this only ends what is left. */
  async onApplicationShutdown(): Promise<void> {
    await this.close(0);
  }

  /** Starts the workers; without a worker script every review stays in-process (logged). */
  start(): void {
    if (this.options.size === 0) return;
    if (!existsSync(this.script.path)) {
      this.logger.error(`no review worker at ${this.script.path}; reviews are evaluated in-process`);
      return;
    }
    this.unsubscribe = this.cache.onChange((snapshot) => this.syncTo(snapshot));
    this.syncTo(this.cache.snapshot());
    for (let i = 0; i < this.options.size; i++) this.spawn();
  }

  /** Workers ready for reviews. */
  get size(): number {
    return this.slots.filter((slot) => slot.ready).length;
  }

  /** Reviews decided by a worker, and in-process (no worker up, or context only the main thread has). */
  counts(): { readonly byWorkers: number; readonly inProcess: number } {
    return { ...this.answered };
  }

  /**
   * The decision of a review, by a worker when one is up, else (or when context is needed) in-process.
   * `raw` is the AdmissionReview body `request` was parsed from (without it, the request is written out).
   */
  decide(
    kind: ReviewKind,
    failurePolicy: FailurePolicy,
    request: AdmissionRequest,
    inputs: ReviewInputs,
    deadlineAt: number,
    raw?: Buffer,
  ): Promise<ReviewOutcome> {
    const slot = this.leastBusy();
    if (!slot) return this.inProcess(kind, failurePolicy, request, inputs);
    if (inputs.snapshot.generation > this.synced.generation) this.syncTo(inputs.snapshot);
    if (inputs.config !== this.config) this.broadcast({ type: 'config', config: (this.config = inputs.config) });
    const id = this.nextId++;
    const deadlineMs = Math.max(1, deadlineAt - performance.now());
    const tracing = this.options.tracing ?? NO_TRACING;
    const replay = tracing.enabled && tracing.replay ? tracing.bind(tracing.replay.bind(tracing)) : undefined;
    return new Promise<ReviewOutcome>((resolve, reject) => {
      const stuck = setTimeout(() => this.replaceStuck(slot, id), deadlineMs + STUCK_GRACE_MS);
      stuck.unref();
      const facts = { kind: request.kind.kind, namespace: request.namespace ?? '', operation: request.operation };
      this.pending.set(id, {
        slot,
        kind,
        failurePolicy,
        request,
        inputs,
        facts,
        stuck,
        ...(replay ? { replay } : {}),
        decided: { resolve, reject },
      });
      slot.reviews.add(id);
      slot.outbox.post({
        type: 'review',
        id,
        kind,
        failurePolicy,
        review: raw ? bodyText(raw) : JSON.stringify({ request }),
        generation: this.synced.generation,
        deadlineEpochMs: performance.timeOrigin + deadlineAt,
        namespaceLabels: inputs.namespaceLabels,
        roles: inputs.roles,
        backgroundUsername: inputs.backgroundUsername,
        admissionReports: inputs.admissionReports,
        topLevelKind: inputs.topLevelKind,
        ...(replay ? { trace: true } : {}),
      } satisfies ToWorker);
    });
  }

  /**
   * Stops after the reviews and audits in flight finished (or `timeoutMs` passed): true when
   * nothing was cut short. Idempotent.
   */
  async close(timeoutMs: number): Promise<boolean> {
    this.closed = true;
    this.unsubscribe?.();
    const drained = await this.whenIdle(timeoutMs);
    for (const slot of this.slots.splice(0)) {
      slot.gone = true;
      await slot.worker.terminate();
    }
    for (const id of [...this.pending.keys()]) this.fail(id, new Error('review workers stopped'));
    return drained;
  }

  private whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.pending.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private syncTo(snapshot: PolicySnapshot): void {
    if (snapshot === this.synced) return;
    const sync = policySync(this.synced, snapshot, this.cache.settings());
    this.synced = snapshot;
    this.broadcast({ type: 'policies', sync });
  }

  private broadcast(message: ToWorker): void {
    for (const slot of this.slots) slot.outbox.post(message);
  }

  private leastBusy(): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.slots) if (slot.ready && (!best || slot.reviews.size < best.reviews.size)) best = slot;
    return best;
  }

  private spawn(): void {
    const worker = new Worker(this.script.path, { workerData: this.script.workerData });
    const outbox = new MessageBatch<ToWorker>((batch) => worker.postMessage(batch));
    const slot: Slot = { worker, outbox, reviews: new Set(), ready: false, gone: false };
    this.slots.push(slot);
    // A new worker starts from nothing: the whole current state first.
    outbox.post({
      type: 'policies',
      sync: policySync(PolicySnapshot.empty(), this.synced, this.cache.settings()),
    } satisfies ToWorker);
    if (this.config) outbox.post({ type: 'config', config: this.config } satisfies ToWorker);
    worker.on('message', (encoded: string) => {
      for (const message of decodeFromWorker(encoded)) {
        if (message.type === 'ready') slot.ready = true;
        else this.receive(message);
      }
    });
    worker.on('error', (error) => this.logger.error(`review worker failed: ${error.stack ?? error.message}`));
    worker.on('exit', (code) => this.exited(slot, code));
  }

  private exited(slot: Slot, code: number): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    const expected = slot.gone;
    slot.gone = true;
    for (const id of [...slot.reviews]) this.fail(id, new Error(`review worker exited (code ${code})`));
    if (expected || this.closed) return;
    this.logger.warn(`review worker exited (code ${code}); starting another`);
    setTimeout(() => this.closed || this.spawn(), RESPAWN_DELAY_MS).unref();
  }

  private replaceStuck(slot: Slot, id: number): void {
    if (slot.gone || !this.pending.get(id)?.decided) return;
    this.logger.warn(`review worker still busy ${STUCK_GRACE_MS}ms past a review's deadline; replacing it`);
    void slot.worker.terminate();
  }

  private receive(message: Exclude<FromWorker, { type: 'ready' }>): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'failed') {
      this.fail(message.id, message.deadline ? new EvaluationDeadlineExceeded() : new Error(message.message));
      return;
    }
    if (message.type === 'decided') {
      const decided = pending.decided!;
      pending.decided = undefined;
      clearTimeout(pending.stuck);
      if ('inProcess' in message) {
        this.done(message.id);
        decided.resolve(this.inProcess(pending.kind, pending.failurePolicy, pending.request, pending.inputs));
        return;
      }
      this.answered.byWorkers += 1;
      this.record(message.evaluations, pending.facts);
      if (message.spans) pending.replay?.(message.spans);
      decided.resolve(this.outcomeOf(pending, message.outcome));
      if (!pending.after) this.done(message.id);
      return;
    }
    const after = pending.after;
    this.done(message.id);
    if (!after) return;
    if ('error' in message) after.reject(new Error(message.error));
    else if ('inProcess' in message) after.resolve(this.auditInProcess(pending));
    else {
      this.record(message.evaluations, pending.facts);
      if (message.spans) pending.replay?.(message.spans);
      after.resolve(message.after);
    }
  }

  /** The outcome as the in-process path builds it; its `after` waits for the worker's audits. */
  private outcomeOf(pending: Pending, wire: WireOutcome): ReviewOutcome {
    const policies = wire.policies
      .map((key) => pending.inputs.snapshot.policies.get(key)?.compiled)
      .filter((compiled): compiled is CompiledPolicy => compiled !== undefined);
    const { validation, mutation, decision } = wire;
    if (!validation) return { decision, policies, ...(mutation ? { mutation } : {}) };
    const { hasAfter, ...rest } = validation;
    if (!hasAfter) return { decision, policies, validation: rest };
    const audits = new Promise<AfterAdmission>((resolve, reject) => (pending.after = { resolve, reject }));
    // Nobody may ask for the audits (a dropped after-admission job); their failure is then no one's.
    audits.catch(() => undefined);
    return { decision, policies, validation: { ...rest, after: () => audits } };
  }

  private inProcess(
    kind: ReviewKind,
    failurePolicy: FailurePolicy,
    request: AdmissionRequest,
    inputs: ReviewInputs,
  ): Promise<ReviewOutcome> {
    this.answered.inProcess += 1;
    return decideReview(kind, failurePolicy, request, inputs);
  }

  /** A worker's audits read context only the main thread has: the main thread runs them. */
  private async auditInProcess(pending: Pending): Promise<AfterAdmission> {
    const { deadline: _deadline, ...inputs } = pending.inputs;
    const outcome = await decideReview(pending.kind, pending.failurePolicy, pending.request, inputs);
    return (await outcome.validation?.after?.()) ?? { reportResults: [], auditResponses: [] };
  }

  private record(evaluations: readonly PolicyEvaluation[], facts: RequestFacts): void {
    for (const evaluation of evaluations) this.options.recordPolicy(evaluation, facts);
  }

  private fail(id: number, error: Error): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.done(id);
    pending.decided?.reject(error);
    pending.after?.reject(error);
  }

  private done(id: number): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    clearTimeout(pending.stuck);
    pending.slot.reviews.delete(id);
    this.pending.delete(id);
    if (this.pending.size === 0) for (const resolve of this.idle.splice(0)) resolve();
  }
}

/** The bundled worker beside the bundle; from the sources (a test runner), the sources compiled on load. */
function defaultScript(): WorkerScript {
  if (__filename.endsWith('.ts'))
    return {
      path: join(__dirname, 'typescript-worker.js'),
      workerData: { entry: join(__dirname, 'review-worker.main.ts') },
    };
  return { path: join(__dirname, 'review-worker.js') };
}

/** The body's text as the worker parses it: without the byte order mark Fastify's JSON parser skips too. */
function bodyText(raw: Buffer): string {
  const text = raw.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
