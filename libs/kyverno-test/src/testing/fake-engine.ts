import type {
  CompiledPolicy,
  EngineDependencies,
  EvaluationOptions,
  MutationResponse,
  Policy,
  PolicyResponse,
  ResourceRequest,
  RuleResponse,
} from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { EngineFactory, TestEngine } from '../test-engine';

export interface FakeCall {
  stage: 'validate' | 'mutate' | 'generate';
  policy: string;
  request: ResourceRequest;
  options?: EvaluationOptions;
}

export type FakeRules = (policy: Policy, request: ResourceRequest, options?: EvaluationOptions) => RuleResponse[];

/** An engine whose answers are scripted per policy and request; it records every call. */
export class FakeEngine implements TestEngine {
  readonly calls: FakeCall[] = [];
  dependencies?: EngineDependencies;

  constructor(
    private readonly validateRules: FakeRules,
    private readonly mutateRules?: (
      policy: Policy,
      request: ResourceRequest,
    ) => { rules: RuleResponse[]; patched?: KubeObject },
  ) {}

  compile(policy: Policy): CompiledPolicy {
    return {
      policy,
      key: policy.metadata.name,
      validateRules: policy.spec.rules.filter((r) => r.validate),
      mutateRules: policy.spec.rules.filter((r) => r.mutate),
      generateRules: policy.spec.rules.filter((r) => r.generate),
      imageVerifyRules: [],
      failureActions: { policy: undefined, rules: new Map() },
      programs: new Map(),
    };
  }

  async validate(
    compiled: CompiledPolicy,
    request: ResourceRequest,
    options?: EvaluationOptions,
  ): Promise<PolicyResponse> {
    this.calls.push({ stage: 'validate', policy: compiled.policy.metadata.name, request, options });
    return response(compiled.policy, request, this.validateRules(compiled.policy, request, options));
  }

  get mutate(): TestEngine['mutate'] {
    const mutateRules = this.mutateRules;
    if (!mutateRules) return undefined;
    return async (
      compiled: CompiledPolicy,
      request: ResourceRequest,
      options?: EvaluationOptions,
    ): Promise<MutationResponse> => {
      this.calls.push({ stage: 'mutate', policy: compiled.policy.metadata.name, request, options });
      const { rules, patched } = mutateRules(compiled.policy, request);
      return { ...response(compiled.policy, request, rules), patchedResource: patched };
    };
  }

  factory(): EngineFactory {
    return (dependencies) => {
      this.dependencies = dependencies;
      return this;
    };
  }
}

function response(policy: Policy, request: ResourceRequest, rules: RuleResponse[]): PolicyResponse {
  const resource = request.resource ?? request.oldResource;
  return {
    policy: { name: policy.metadata.name, namespace: policy.metadata.namespace, kind: policy.kind },
    resource: {
      apiVersion: resource?.apiVersion ?? '',
      kind: resource?.kind ?? '',
      name: resource?.metadata.name ?? '',
      namespace: resource?.metadata.namespace,
    },
    rules,
    validationFailureAction: policy.spec.validationFailureAction?.toLowerCase() === 'enforce' ? 'Enforce' : 'Audit',
  };
}

export const rule = (name: string, status: RuleResponse['status'], message = ''): RuleResponse => ({
  name,
  type: 'Validation',
  status,
  message,
});
