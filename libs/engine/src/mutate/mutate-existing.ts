import type { JsonObject, JsonValue, KubeObject } from '../json';
import { loadContextEntries } from '../context-entries';
import { checkConditions } from '../engine/conditions';
import type { ResourceLoader } from '../engine/loaders';
import { ruleError, ruleResponse } from '../engine/responses';
import type { RuleResponse } from '../engine/types';
import type { TargetResourceSpec } from '../policy/types';
import type { RuleRun } from '../validate/rule-run';
import { wildcardMatch, hasWildcard } from '../values/wildcard';
import { substituteVariables } from '../variables';
import { applyPatches } from './apply-patches';
import { mutateForeach, mutationResponse } from './mutate-resource';

/**
 * Kyverno's mutate-existing handler: each target the rule names is loaded, exposed as `target`, and
 * patched. The trigger itself is never changed; the patched targets are for the background
 * controller to apply. One response per target, as Kyverno reports them.
 */
export async function mutateExisting(run: RuleRun, resources: ResourceLoader | undefined): Promise<RuleResponse[]> {
  const { rule, ctx } = run;
  const responses: RuleResponse[] = [];
  for (const spec of rule.mutate!.targets ?? []) {
    let targets: KubeObject[];
    try {
      targets = await loadTargets(spec, run, resources);
    } catch (error) {
      responses.push(ruleError(rule, 'Mutation', 'failed to load targets', error));
      continue;
    }
    for (const target of targets) {
      ctx.setTarget(target);
      try {
        await loadContextEntries(spec.context, ctx, run.context);
      } catch (error) {
        responses.push(ruleError(rule, 'Mutation', 'failed to load context', error));
        continue;
      }
      let preconditions;
      try {
        preconditions = checkConditions(spec.preconditions, ctx);
      } catch (error) {
        responses.push(ruleError(rule, 'Mutation', 'failed to evaluate preconditions', error));
        continue;
      }
      if (!preconditions.passed) {
        const message = ['preconditions not met', preconditions.message].filter(Boolean).join('; ');
        responses.push(ruleResponse(rule, 'Mutation', 'skip', message));
        continue;
      }
      const outcome = rule.mutate!.foreach
        ? await mutateForeach(run, rule.mutate!.foreach, target, 0)
        : applyPatches(rule.mutate!, target, ctx, '/mutate');
      if (outcome.status === 'pass') ctx.setTarget(outcome.resource);
      const response = mutationResponse(rule, outcome);
      if (response.patchedResource) {
        response.patchedTargets = [response.patchedResource];
        delete response.patchedResource;
      }
      responses.push(response);
    }
  }
  return responses;
}

/** Resolves a target spec (variables allowed in every field) to the objects it names. */
async function loadTargets(spec: TargetResourceSpec, run: RuleRun, resources: ResourceLoader | undefined): Promise<KubeObject[]> {
  const { context: _context, preconditions: _preconditions, ...selector } = spec;
  const resolved = substituteVariables(selector as unknown as JsonValue, run.ctx) as unknown as TargetResourceSpec;
  if (!resources) return [];
  const namespace = resolved.namespace || undefined;
  if (resolved.name && !hasWildcard(resolved.name)) {
    const target = await resources.get(resolved.apiVersion, resolved.kind, namespace, resolved.name);
    return target ? [target] : [];
  }
  const listed = await resources.list(resolved.apiVersion, resolved.kind, namespace, resolved.selector as JsonObject | undefined);
  const name = resolved.name;
  return name ? listed.filter((object) => wildcardMatch(name, object.metadata?.name ?? '')) : listed;
}
