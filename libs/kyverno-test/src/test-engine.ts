import type {
  CompiledPolicy,
  EngineDependencies,
  EvaluationOptions,
  ImageVerificationResponse,
  MutationResponse,
  Policy,
  PolicyResponse,
  ResourceRequest,
} from '@edict/engine';

/**
 * The part of the engine the CLI drives. `mutate` and `generate` are optional so the runner works with
 * an engine that only validates yet; when they exist they are called in Kyverno's order.
 */
export interface TestEngine {
  compile(policy: Policy): CompiledPolicy;
  validate(policy: CompiledPolicy, request: ResourceRequest, options?: EvaluationOptions): Promise<PolicyResponse>;
  mutate?(policy: CompiledPolicy, request: ResourceRequest, options?: EvaluationOptions): Promise<MutationResponse>;
  generate?(policy: CompiledPolicy, request: ResourceRequest, options?: EvaluationOptions): Promise<PolicyResponse>;
  verifyImages?(
    policy: CompiledPolicy,
    request: ResourceRequest,
    options?: EvaluationOptions,
  ): Promise<ImageVerificationResponse>;
}

export type EngineFactory = (dependencies: EngineDependencies) => TestEngine;
