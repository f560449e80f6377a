/**
 * An AdmissionEngine that remembers, for each policy response it hands back, how long the engine
 * took and which object the policy saw (so each mutate rule's own patch can be worked out). It
 * changes nothing in the calls: the admission logic sees the engine it would see in a webhook.
 */
import type { AdmissionEngine } from '@edict/admission';
import type { PolicyResponse } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';

export interface PolicyRun {
  readonly durationMs: number;
  /** The object the policy was evaluated on (for mutation: before its first rule). */
  readonly input?: KubeObject;
}

export class TracingEngine implements AdmissionEngine {
  private readonly runs = new WeakMap<PolicyResponse, PolicyRun>();

  constructor(private readonly engine: AdmissionEngine) {}

  readonly validate: AdmissionEngine['validate'] = (compiled, request, options) =>
    this.timed(request.resource, () => this.engine.validate(compiled, request, options));

  readonly mutate: AdmissionEngine['mutate'] = (compiled, request, options) =>
    this.timed(request.resource, () => this.engine.mutate(compiled, request, options));

  readonly verifyImages: NonNullable<AdmissionEngine['verifyImages']> = (compiled, request, options) =>
    this.timed(request.resource, () => {
      if (!this.engine.verifyImages) throw new Error('image verification is not available in this engine');
      return this.engine.verifyImages(compiled, request, options);
    });

  readonly generate: AdmissionEngine['generate'] = (compiled, request, options) =>
    this.timed(request.resource, () => this.engine.generate(compiled, request, options));

  /** What was recorded for a response this engine returned (none for a policy whose evaluation threw). */
  runOf(response: PolicyResponse): PolicyRun | undefined {
    return this.runs.get(response);
  }

  private async timed<T extends PolicyResponse>(input: KubeObject | undefined, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const response = await work();
    this.runs.set(response, { durationMs: performance.now() - started, ...(input ? { input } : {}) });
    return response;
  }
}
