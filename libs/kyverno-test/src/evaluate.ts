import type { IvpolPorts } from '@edict/cel-policies';
import {
  applyImagePatches,
  type CompiledPolicy,
  type EvaluationOptions,
  type Operation,
  type Policy,
  type PolicyResponse,
} from '@edict/engine';
import { type KubeObject, errorMessage } from '@edict/foundation';
import { evaluateCelPolicies, type CelEvaluatedResponse } from './evaluate-cel';
import { createContextLoaders, createResourceLoader } from './mock-loaders';
import { buildRequest, type RequestInputs } from './request-builder';
import type { EngineFactory, TestEngine } from './test-engine';
import type { LoadedTest } from './types';
import { ValuesLookup } from './values-lookup';

export type Stage = 'mutate' | 'validate' | 'generate';

/** One policy's answer for one trigger resource. */
export interface EvaluatedResponse {
  policy: Policy;
  compiled: CompiledPolicy;
  /** The trigger resource as the test gave it (before any mutation). */
  resource: KubeObject;
  /** The operation forced by a `results[].operation`, when this run was made for one. */
  operationOverride?: Operation;
  stage: Stage;
  response: PolicyResponse;
  /** The resource after this policy: mutate's patched object, or what validate saw. */
  patchedResource?: KubeObject;
}

export interface TestEvaluation {
  responses: EvaluatedResponse[];
  /** Answers of Kyverno's CEL policies and of Kubernetes' admission policies. */
  celResponses: CelEvaluatedResponse[];
  /** Engine failures (compile errors, thrown evaluations); any of them fails the test. */
  errors: string[];
}

/** Looks at the compiled policy, whose rules include the autogen copies. */
const hasRule = (entry: Compiled, test: (rule: Policy['spec']['rules'][number]) => unknown) =>
  (entry.compiled.policy.spec.rules ?? []).some((rule) => test(rule));

/**
 * Runs every policy against every resource as Kyverno's CLI does: per resource, mutations first (each
 * policy sees the previous one's output), then validation of the mutated resource, then generation.
 * One extra pass runs for each operation a `results[]` entry asks for. Kyverno's CEL policies and
 * Kubernetes' admission policies follow, each on the resources as the test gave them.
 */
export async function evaluateTest(
  test: LoadedTest,
  engineFactory: EngineFactory,
  options: { images?: IvpolPorts } = {},
): Promise<TestEvaluation> {
  const exceptions = test.exceptions;
  const engine = engineFactory({
    loaders: createContextLoaders(test),
    resources: createResourceLoader(test),
    exceptions: () => exceptions,
    offline: true,
  });
  const evaluation: TestEvaluation = { responses: [], celResponses: [], errors: [] };
  const compiled = compileAll(engine, test.policies, evaluation);
  const values = new ValuesLookup(test.values);
  const inputs: RequestInputs = { values, user: test.user, subresources: test.values.subresources };
  const overrides = [
    ...new Set(
      test.definition.results.map((result) => result.operation).filter((op): op is Operation => op !== undefined),
    ),
  ];
  for (const operationOverride of [undefined, ...overrides]) {
    for (const resource of test.resources) {
      await evaluateResource(engine, compiled, resource, inputs, values, operationOverride, evaluation);
    }
  }
  const cel = await evaluateCelPolicies(test, inputs, overrides, options.images);
  evaluation.celResponses.push(...cel.responses);
  evaluation.errors.push(...cel.errors);
  return evaluation;
}

type Compiled = { policy: Policy; compiled: ReturnType<TestEngine['compile']> };

function compileAll(engine: TestEngine, policies: readonly Policy[], evaluation: TestEvaluation): Compiled[] {
  const out: Compiled[] = [];
  for (const policy of policies) {
    try {
      out.push({ policy, compiled: engine.compile(policy) });
    } catch (error) {
      evaluation.errors.push(`policy ${policy.metadata.name}: ${errorMessage(error)}`);
    }
  }
  return out;
}

async function evaluateResource(
  engine: TestEngine,
  policies: readonly Compiled[],
  resource: KubeObject,
  inputs: RequestInputs,
  values: ValuesLookup,
  operationOverride: Operation | undefined,
  evaluation: TestEvaluation,
): Promise<void> {
  const name = resource.metadata.name ?? '';
  let current = resource;
  const run = async (
    stage: Stage,
    { policy, compiled }: Compiled,
    call: (options: EvaluationOptions) => Promise<PolicyResponse & { patchedResource?: KubeObject }>,
  ) => {
    try {
      const response = await call(values.options(policy.metadata.name, name));
      const patchedResource =
        stage === 'mutate' ? (response.patchedResource ?? lastPatched(response) ?? current) : current;
      evaluation.responses.push({ policy, compiled, resource, operationOverride, stage, response, patchedResource });
      return patchedResource;
    } catch (error) {
      evaluation.errors.push(
        `${stage} policy ${policy.metadata.name} on ${resource.kind}/${name}: ${errorMessage(error)}`,
      );
      return current;
    }
  };
  const mutate = engine.mutate?.bind(engine);
  if (mutate) {
    for (const entry of policies.filter((entry) => hasRule(entry, (rule) => rule.mutate))) {
      current = await run('mutate', entry, (options) =>
        mutate(entry.compiled, buildRequest(entry.policy.metadata.name, current, inputs, operationOverride), options),
      );
    }
  }
  // Kyverno's CLI verifies images after mutating: each verifyImages policy's digests and the
  // verify-images annotation patch the resource the validate rules then see.
  const verifyImages = engine.verifyImages?.bind(engine);
  if (verifyImages) {
    for (const entry of policies.filter((entry) => entry.compiled.imageVerifyRules.length > 0)) {
      const before = current;
      current = await run('mutate', entry, async (options) => {
        const response = await verifyImages(
          entry.compiled,
          buildRequest(entry.policy.metadata.name, before, inputs, operationOverride),
          options,
        );
        return { ...response, patchedResource: applyImagePatches(before, [response]).resource };
      });
    }
  }
  for (const entry of policies.filter((entry) => hasRule(entry, (rule) => rule.validate || rule.verifyImages))) {
    await run('validate', entry, (options) =>
      engine.validate(
        entry.compiled,
        buildRequest(entry.policy.metadata.name, current, inputs, operationOverride),
        options,
      ),
    );
  }
  const generate = engine.generate?.bind(engine);
  if (generate) {
    for (const entry of policies.filter((entry) => hasRule(entry, (rule) => rule.generate))) {
      await run('generate', entry, (options) =>
        generate(entry.compiled, buildRequest(entry.policy.metadata.name, current, inputs, operationOverride), options),
      );
    }
  }
}

/** Without a policy-level patched object, the last rule that patched tells the final state. */
function lastPatched(response: PolicyResponse): KubeObject | undefined {
  for (let i = response.rules.length - 1; i >= 0; i--) {
    const patched = response.rules[i].patchedResource;
    if (patched) return patched;
  }
  return undefined;
}
