/**
 * One UpdateRequest from its state to the next, as Kyverno's background controller moves it:
 *  - Pending (or no state yet): while the change it answers is not stored yet (admitted-change.ts)
 *    it waits, untouched; then the work is done (generate: every rule context; mutate: the rule),
 *    then the status says `Completed` (with `generatedResources`) or `Failed` (with the message and
 *    `retryCount` one higher);
 *  - Completed: the request is deleted;
 *  - Failed: back to Pending and done again, while `retryCount` is within the limit; beyond it the
 *    request is deleted (Kyverno: more than 3 retries). How long to wait before that is the caller's
 *    (retryDelay).
 * Every write names the resourceVersion it read, so two leaders never both move one request: the
 * loser's write conflicts and it reads the request again. The first attempt may start from the
 * informer's copy instead of a read (Kyverno reads requests from its lister too): a stale copy
 * conflicts on its first write and is read again, as a lost race is. Work done before a conflicting
 * status write is not done again: if the fresh copy still waits (its status rewritten as Pending
 * meanwhile, as the admission controller does after creating it), it gets that work's outcome;
 * patching twice would report the second pass as "no patches applied".
 */
import { isConflict, isNotFound } from '@edict/kube';
import type { CachedPolicy } from '@edict/policy';
import { generateForRule } from '../generate/generate-rule';
import { generateForCelRequest, type GpolRequestDeps } from '../generate/gpol-request';
import { awaitsAdmittedChange } from './admitted-change';
import { mutateExistingForRequest } from '../mutate-existing/mutate-existing-rule';
import type { AppliedRule } from '../reports/trigger-report';
import type { ClusterObjects } from './cluster-objects';
import { failed, policyIdentity, type RuleWorkDeps, type RuleWorkOutcome } from './rule-work';
import { tenantClusterObjects } from './tenant-cluster-objects';
import {
  ruleContextsOf,
  UPDATE_REQUEST_API_VERSION,
  UPDATE_REQUEST_KIND,
  type UpdateRequest,
  type UpdateRequestStatus,
} from './update-request';

export interface ProcessorOptions {
  readonly namespace: string;
  /** Failed attempts allowed before the request is deleted. */
  readonly maxRetries: number;
  /** How long after its creation a request from a review waits for the change it answers to be stored. */
  readonly admissionWaitMs: number;
  readonly now?: () => number;
}

export interface ProcessorDeps extends Omit<RuleWorkDeps, 'report'> {
  /** The policy the request names (`name` or `namespace/name`), from the policy cache. */
  policy(key: string): CachedPolicy | undefined;
  /** Reports a rule applied for the request `requestKey` (its uid, else its name). */
  report(requestKey: string, applied: AppliedRule): Promise<void>;
  /** GeneratingPolicies (`cel-generate` requests); without it such requests fail. */
  readonly generating?: GpolRequestDeps;
}

/** What one step did, for the caller's queue and metrics. */
export type StepResult =
  | { readonly kind: 'gone' }
  | { readonly kind: 'completed' }
  | { readonly kind: 'failed'; readonly retryCount: number; readonly message: string }
  | { readonly kind: 'dropped'; readonly message: string }
  | { readonly kind: 'skipped' }
  /** The change the request answers is not stored yet: step again shortly. */
  | { readonly kind: 'waiting' };

/** The outcome of the work one step did, kept across the attempts of that step. */
interface WorkDone {
  outcome?: RuleWorkOutcome;
}

export class UpdateRequestProcessor {
  constructor(
    private readonly deps: ProcessorDeps,
    private readonly options: ProcessorOptions,
  ) {}

  /**
   * Moves the request one state on, from `known` (the informer's copy) when given, else from a
   * fresh read; a lost race reads it again.
   */
  async step(name: string, known?: UpdateRequest): Promise<StepResult> {
    const done: WorkDone = {};
    for (let attempt = 0; ; attempt++) {
      try {
        const current = attempt === 0 && known ? known : await this.read(name);
        return current ? await this.stepFrom(current, done) : { kind: 'gone' };
      } catch (error) {
        if (isNotFound(error)) return { kind: 'gone' };
        if (!isConflict(error) || attempt >= 3) throw error;
      }
    }
  }

  private async read(name: string): Promise<UpdateRequest | undefined> {
    return this.cluster.get<UpdateRequest>(this.ref(name));
  }

  private async stepFrom(current: UpdateRequest, done: WorkDone): Promise<StepResult> {
    const state = current.status?.state;
    if (state === 'Skip') return { kind: 'skipped' };
    if (state === 'Completed') {
      await this.remove(current);
      return { kind: 'completed' };
    }
    let request = current;
    if (state === 'Failed') {
      if ((current.status?.retryCount ?? 0) > this.options.maxRetries) {
        await this.remove(current);
        return { kind: 'dropped', message: current.status?.message ?? '' };
      }
      request = await this.writeStatus(current, { ...current.status, state: 'Pending' });
    } else if (
      done.outcome === undefined &&
      (await awaitsAdmittedChange(request, this.cluster, {
        windowMs: this.options.admissionWaitMs,
        now: this.options.now ?? Date.now,
      }))
    ) {
      return { kind: 'waiting' };
    }
    done.outcome ??= await this.work(request);
    const outcome = done.outcome;
    if (outcome.error === undefined) {
      const completed = await this.writeStatus(request, {
        state: 'Completed',
        ...(outcome.generated.length > 0 ? { generatedResources: outcome.generated } : {}),
        ...(request.status?.retryCount ? { retryCount: request.status.retryCount } : {}),
      });
      await this.remove(completed);
      return { kind: 'completed' };
    }
    const retryCount = (request.status?.retryCount ?? 0) + 1;
    await this.writeStatus(request, {
      state: 'Failed',
      message: outcome.error,
      ...(outcome.generated.length > 0 ? { generatedResources: outcome.generated } : {}),
      retryCount,
    });
    return { kind: 'failed', retryCount, message: outcome.error };
  }

  private async work(request: UpdateRequest): Promise<RuleWorkOutcome> {
    const spec = request.spec;
    if (spec.requestType === 'cel-generate') {
      if (!this.deps.generating) return failed(`gpol ${spec.policy} failed: GeneratingPolicies are not served here`);
      return generateForCelRequest(
        spec,
        request.metadata.uid ?? request.metadata.name,
        this.deps,
        this.deps.generating,
      );
    }
    const cached = this.deps.policy(spec.policy);
    if (!cached) return failed(`policy ${spec.policy} not found`);
    const requestKey = request.metadata.uid ?? request.metadata.name;
    const deps: RuleWorkDeps = {
      ...this.deps,
      // A namespaced Policy writes only namespaced objects of its own namespace, never Kyverno's kinds.
      cluster: tenantClusterObjects(this.deps.cluster, policyIdentity(cached)),
      report: (applied) => this.deps.report(requestKey, applied),
    };
    if (spec.requestType === 'mutate') return mutateExistingForRequest(spec, cached, deps);
    const errors: string[] = [];
    const generated: RuleWorkOutcome['generated'] = [];
    for (const ruleContext of ruleContextsOf(spec)) {
      const outcome = await generateForRule(spec, ruleContext, cached, deps);
      generated.push(...outcome.generated);
      if (outcome.error !== undefined) errors.push(outcome.error);
    }
    return errors.length > 0 ? failed(errors.join('; '), generated) : { generated };
  }

  private get cluster(): ClusterObjects {
    return this.deps.cluster;
  }

  private ref(name: string) {
    return {
      apiVersion: UPDATE_REQUEST_API_VERSION,
      kind: UPDATE_REQUEST_KIND,
      namespace: this.options.namespace,
      name,
    };
  }

  private writeStatus(request: UpdateRequest, status: UpdateRequestStatus) {
    return this.cluster.replace({ ...request, status }, 'status');
  }

  private async remove(request: UpdateRequest): Promise<void> {
    try {
      await this.cluster.delete(this.ref(request.metadata.name), { uid: request.metadata.uid });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
