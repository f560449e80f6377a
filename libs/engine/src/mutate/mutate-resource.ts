import { deepEqual, type JsonValue, type KubeObject } from '@edict/foundation';
import { loadContextEntries } from '../context-entries';
import { checkConditions } from '../core/conditions';
import { ruleResponse } from '../core/responses';
import type { RuleResponse } from '../core/types';
import type { ForEachMutation, Rule } from '../policy/types';
import { evaluateForeachList } from '../validate/foreach-list';
import type { RuleRun } from '../validate/rule-run';
import { applyPatches, type MutateOutcome } from './apply-patches';

/**
 * Kyverno's mutate handler for the resource under admission: the rule's patches, or its foreach
 * loops, applied to the resource as left by the previous rules. Returns the rule's response and the
 * resource the next rule sees.
 */
export async function mutateResource(run: RuleRun): Promise<RuleResponse> {
  const outcome = run.rule.mutate!.foreach
    ? await mutateForeach(run, run.rule.mutate!.foreach, run.resource, 0)
    : applyPatches(run.rule.mutate!, run.resource, run.ctx, '/mutate');
  return mutationResponse(run.rule, outcome);
}

export function mutationResponse(rule: Rule, outcome: MutateOutcome): RuleResponse {
  if (outcome.status !== 'pass') return ruleResponse(rule, 'Mutation', outcome.status, outcome.message);
  const response = ruleResponse(rule, 'Mutation', 'pass', mutatedMessage(outcome.resource));
  response.patchedResource = outcome.resource;
  return response;
}

function mutatedMessage(resource: KubeObject): string {
  const { name, namespace } = resource.metadata ?? {};
  return namespace ? `mutated ${resource.kind}/${name} in namespace ${namespace}` : `mutated ${resource.kind}/${name}`;
}

/**
 * Runs foreach loops in order; each loop patches the resource left by the previous one, which later
 * loops also read as `request.object`. A rule none of whose loops changed anything is skipped.
 */
export async function mutateForeach(
  run: RuleRun,
  loops: readonly ForEachMutation[],
  resource: KubeObject,
  nesting: number,
): Promise<MutateOutcome> {
  let current = resource;
  let applied = 0;
  for (const loop of loops) {
    let elements: JsonValue[];
    try {
      elements = evaluateForeachList(loop.list, run.ctx);
    } catch (error) {
      return { status: 'error', message: `failed to evaluate list ${loop.list}: ${(error as Error).message}` };
    }
    const outcome = await mutateElements(run, loop, elements, current, nesting);
    if (outcome.status !== 'pass') {
      if (outcome.status === 'error')
        return { status: 'error', message: `failed to mutate elements: ${outcome.message}` };
      continue;
    }
    applied++;
    current = outcome.resource;
    run.ctx.replace('request.object', current);
  }
  if (applied === 0) return { status: 'skip', message: '0 elements processed' };
  return { status: 'pass', resource: current };
}

async function mutateElements(
  run: RuleRun,
  loop: ForEachMutation,
  elements: JsonValue[],
  resource: KubeObject,
  nesting: number,
): Promise<MutateOutcome> {
  const { ctx } = run;
  const order = elements.map((_, index) => index);
  // Strategic merge puts the elements it patches first; walking them backwards keeps their order.
  const descending = loop.order ? loop.order === 'Descending' : loop.patchStrategicMerge !== undefined;
  if (descending) order.reverse();
  let current = resource;
  ctx.checkpoint();
  try {
    for (const index of order) {
      ctx.budget.chargeOperations(1, `mutate.foreach element ${index} of ${loop.list}`);
      await ctx.budget.pause();
      const element = elements[index];
      if (element === null || element === undefined) continue;
      ctx.reset();
      for (const [name, values] of Object.entries(run.foreachValues ?? {})) {
        if (index < values.length) ctx.add(name, values[index]);
      }
      ctx.addElement(element, index, nesting);
      try {
        await loadContextEntries(loop.context, ctx, run.context);
      } catch (error) {
        return {
          status: 'error',
          message: `failed to load to mutate.foreach[${index}].context: ${(error as Error).message}`,
        };
      }
      let preconditions;
      try {
        preconditions = checkConditions(loop.preconditions, ctx);
      } catch (error) {
        return {
          status: 'error',
          message: `failed to evaluate mutate.foreach[${index}].preconditions: ${(error as Error).message}`,
        };
      }
      if (!preconditions.passed) continue;
      const outcome = loop.foreach
        ? await mutateForeach(run, loop.foreach, current, nesting + 1)
        : applyPatches(loop, current, ctx, '');
      if (outcome.status === 'error') return outcome;
      if (outcome.status === 'pass') current = outcome.resource;
    }
  } finally {
    ctx.restore();
  }
  // Kyverno judges a loop by its result, not by its elements: patches that cancel out, or anchors
  // that found everything already in place, leave the loop skipped.
  if (deepEqual(current, resource)) return { status: 'skip', message: 'no patches applied' };
  return { status: 'pass', resource: current };
}
