import { type JsonValue, errorMessage } from '@edict/foundation';
import { loadContextEntries } from '../context-entries';
import { checkConditions } from '../core/conditions';
import type { ResourceLoader } from '../core/loaders';
import { ScopeViolation } from '../core/namespaced-scope';
import { ruleResponse } from '../core/responses';
import type { Generation } from '../policy/types';
import { evaluateForeachList } from '../validate/foreach-list';
import type { RuleRun } from '../validate/rule-run';
import { generatePattern, GenerationFailure, type GenerationOutput, type PatternScope } from './pattern';
import type { GeneratingPolicy, GenerationDetails, GenerationRuleResponse } from './types';
import { generationError } from './validate-generation';

type ForeachBlock = NonNullable<Generation['foreach']>[number];

/**
 * Kyverno's generate rule, up to deciding what should exist: for a rule the engine has matched (its
 * context loaded and preconditions passed), the complete objects to create or update, each carrying
 * Kyverno's labels. Nothing is written: applying them is the background controller's job.
 *
 * - `resources` serves clone and cloneList sources (`get`/`list`); without it clones find nothing.
 * - `policy` supplies the policy name/namespace for the labels and the spec-level defaults.
 *
 * Results follow Kyverno: the rule `pass`es whenever it applies, with the objects it produced;
 * failures Kyverno's controller logs (source not found, non-object data, self-clone) are listed in
 * `generation.notGenerated`, failures it reports (variables, foreach lists, foreach context) in
 * `generation.error`. A generate block Kyverno would refuse at admission is an `error` naming the field,
 * and so is a namespaced Policy (`policyNamespace`) whose substituted target, clone source or
 * generated object is cluster-scoped or in another namespace.
 */
export async function generateResources(
  run: RuleRun,
  resources: ResourceLoader | undefined,
  policy?: GeneratingPolicy,
  policyNamespace?: string,
): Promise<GenerationRuleResponse | undefined> {
  const generation = run.rule.generate;
  if (!generation) return undefined;
  const invalid = generationError(generation);
  if (invalid)
    return {
      ...ruleResponse(run.rule, 'Generation', 'error', `invalid generate rule: ${invalid}`),
      type: 'Generation',
    };

  const output: GenerationOutput = { objects: [], sources: [], notGenerated: [] };
  const scope: PatternScope = {
    ctx: run.ctx,
    resources,
    provenance: { trigger: run.resource, policy, ruleName: run.rule.name },
    ...(policyNamespace !== undefined ? { policyNamespace } : {}),
  };
  const errors: string[] = [];
  try {
    if (generation.foreach) errors.push(...(await generateForeach(generation.foreach, run, scope, output)));
    else await generatePattern(generation, 'generate', scope, output);
  } catch (error) {
    // Reaching outside a namespaced Policy's namespace fails the whole rule: nothing is generated.
    if (error instanceof ScopeViolation) {
      return { ...ruleResponse(run.rule, 'Generation', 'error', error.message), type: 'Generation' };
    }
    errors.push(errorMessage(error));
  }

  const response: GenerationRuleResponse = { ...ruleResponse(run.rule, 'Generation', 'pass', ''), type: 'Generation' };
  response.generatedResources = output.objects;
  response.generation = details(generation, policy, output, errors);
  return response;
}

/**
 * Each foreach block runs its pattern once per (non-null) element of its list, with `element` and
 * `elementIndex` set and the block's context and preconditions evaluated per element. A failing list
 * or element is reported and the others still generate, as in Kyverno.
 */
async function generateForeach(
  blocks: ForeachBlock[],
  run: RuleRun,
  scope: PatternScope,
  output: GenerationOutput,
): Promise<string[]> {
  const ctx = run.ctx;
  const errors: string[] = [];
  for (const [blockIndex, block] of blocks.entries()) {
    const path = `generate.foreach[${blockIndex}]`;
    let elements: JsonValue[];
    try {
      elements = evaluateForeachList(block.list, ctx);
    } catch (error) {
      errors.push(`failed to evaluate ${path}.list: ${errorMessage(error)}`);
      continue;
    }
    ctx.checkpoint();
    try {
      for (const [index, element] of elements.entries()) {
        ctx.budget.chargeOperations(1, `${path} element ${index}`);
        await ctx.budget.pause();
        if (element === null || element === undefined) continue;
        ctx.reset();
        ctx.addElement(element, index, 0);
        const failure = await generateElement(block, path, run, scope, output);
        if (failure) errors.push(`failed to process ${path} element ${index}: ${failure}`);
      }
    } finally {
      ctx.restore();
    }
  }
  return errors;
}

/** One element of a foreach block; returns why it failed, if it did. */
async function generateElement(
  block: ForeachBlock,
  path: string,
  run: RuleRun,
  scope: PatternScope,
  output: GenerationOutput,
): Promise<string | undefined> {
  try {
    await loadContextEntries(block.context, run.ctx, run.context);
  } catch (error) {
    return `failed to load context: ${errorMessage(error)}`;
  }
  let preconditions;
  try {
    preconditions = checkConditions(block.preconditions, run.ctx);
  } catch (error) {
    return `failed to evaluate preconditions: ${errorMessage(error)}`;
  }
  if (!preconditions.passed) return undefined;
  try {
    await generatePattern(block, path, scope, output);
  } catch (error) {
    if (error instanceof GenerationFailure) return error.message;
    throw error;
  }
  return undefined;
}

function details(
  generation: Generation,
  policy: GeneratingPolicy | undefined,
  output: GenerationOutput,
  errors: string[],
): GenerationDetails {
  const result: GenerationDetails = {
    synchronize: generation.synchronize === true,
    orphanDownstreamOnPolicyDelete: generation.orphanDownstreamOnPolicyDelete === true,
    generateExisting: generation.generateExisting ?? policy?.spec?.generateExisting ?? false,
    useServerSideApply: policy?.spec?.useServerSideApply === true,
    sources: output.sources,
    notGenerated: output.notGenerated,
  };
  if (errors.length > 0) result.error = errors.join('; ');
  return result;
}
