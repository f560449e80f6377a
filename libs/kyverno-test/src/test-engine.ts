import type {
  CompiledPolicy,
  EngineDependencies,
  EvaluationOptions,
  KubeObject,
  Policy,
  PolicyResponse,
  ResourceRequest,
} from '@edict/engine';

/** A mutate answer: the policy's rule responses and the resource after all its patches. */
export type MutationResponse = PolicyResponse & { patchedResource?: KubeObject };

/**
 * The part of the engine the CLI drives. `mutate` and `generate` are optional so the runner works with
 * an engine that only validates yet; when they exist they are called in Kyverno's order.
 */
export interface TestEngine {
  compile(policy: Policy): CompiledPolicy;
  validate(policy: CompiledPolicy, request: ResourceRequest, options?: EvaluationOptions): Promise<PolicyResponse>;
  mutate?(policy: CompiledPolicy, request: ResourceRequest, options?: EvaluationOptions): Promise<MutationResponse>;
  generate?(policy: CompiledPolicy, request: ResourceRequest, options?: EvaluationOptions): Promise<PolicyResponse>;
}

export type EngineFactory = (dependencies: EngineDependencies) => TestEngine;
