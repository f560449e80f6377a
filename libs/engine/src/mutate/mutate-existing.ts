import { type JsonObject, type JsonValue, type KubeObject, wildcardMatch, hasWildcard } from '@edict/foundation';
import { loadContextEntries } from '../context-entries';
import { checkConditions } from '../core/conditions';
import type { ResourceLoader } from '../core/loaders';
import { checkNamespacedKind } from '../core/namespaced-scope';
import { ruleError, ruleResponse } from '../core/responses';
import type { RuleResponse } from '../core/types';
import type { TargetResourceSpec } from '../policy/types';
import type { RuleRun } from '../validate/rule-run';
import { substituteVariables } from '../variables';
import { applyPatches } from './apply-patches';
import { mutateForeach, mutationResponse } from './mutate-resource';

/**
 * Kyverno's mutate-existing handler: each target the rule names is loaded, exposed as `target`, and
 * patched. The trigger itself is never changed; the patched targets are for the background
 * controller to apply. One response per target, as Kyverno reports them.
 */
export async function mutateExisting(
  run: RuleRun,
  resources: ResourceLoader | undefined,
  policyNamespace?: string,
): Promise<RuleResponse[]> {
  const { rule, ctx } = run;
  const responses: RuleResponse[] = [];
  const { targets, errors } = await loadTargets(rule.mutate!.targets ?? [], run, resources, policyNamespace);
  // Kyverno reports the targets it could not load first (one error, causes joined), then goes on
  // with the ones it could.
  if (errors.length > 0) responses.push(ruleResponse(rule, 'Mutation', 'error', `: ${errors.join('; ')}`));
  for (const { spec, target } of targets) {
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
  return responses;
}

interface LoadedTarget {
  spec: TargetResourceSpec;
  target: KubeObject;
}

/**
 * Resolves every target spec (variables allowed in its selector fields) to the objects it names.
 * A spec that fails is recorded and skipped; the others still load.
 */
async function loadTargets(
  specs: readonly TargetResourceSpec[],
  run: RuleRun,
  resources: ResourceLoader | undefined,
  policyNamespace: string | undefined,
): Promise<{ targets: LoadedTarget[]; errors: string[] }> {
  const targets: LoadedTarget[] = [];
  const errors: string[] = [];
  for (const [index, spec] of specs.entries()) {
    const { context: _context, preconditions: _preconditions, ...selector } = spec;
    let resolved: TargetResourceSpec;
    try {
      resolved = substituteVariables(selector as unknown as JsonValue, run.ctx) as unknown as TargetResourceSpec;
    } catch (error) {
      errors.push(`failed to substitute variables in target[${index}]: ${(error as Error).message}`);
      continue;
    }
    try {
      // A namespaced Policy's targets are forced into its namespace below; a cluster-scoped kind
      // has none, so it is refused here, with the kind as substituted.
      if (policyNamespace !== undefined) {
        await checkNamespacedKind(
          resources,
          policyNamespace,
          `mutate.targets[${index}]`,
          typeof resolved.apiVersion === 'string' ? resolved.apiVersion : '',
          typeof resolved.kind === 'string' ? resolved.kind : '',
        );
      }
      for (const target of await findTargets(resolved, resources, policyNamespace)) targets.push({ spec, target });
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  return { targets, errors };
}

/**
 * Kyverno reads one object directly only when both namespace and name are given without wildcards
 * (a missing object is then an error, as the API server's GET would be); otherwise it lists the kind
 * in every namespace and keeps the objects whose namespace and name match the patterns. A namespaced
 * policy only ever sees its own namespace.
 */
async function findTargets(
  spec: TargetResourceSpec,
  resources: ResourceLoader | undefined,
  policyNamespace: string | undefined,
): Promise<KubeObject[]> {
  if (!resources) return [];
  const namespace = policyNamespace ?? spec.namespace ?? '';
  const name = spec.name ?? '';
  if (namespace !== '' && name !== '' && !hasWildcard(namespace) && !hasWildcard(name)) {
    const target = await resources.get(spec.apiVersion, spec.kind, namespace, name);
    if (!target) throw new Error(`${resourceName(spec.kind)} "${name}" not found`);
    return [target];
  }
  const listed = await resources.list(spec.apiVersion, spec.kind, undefined, spec.selector as JsonObject | undefined);
  return listed.filter((object) => namesMatch(namespace, name, object));
}

function namesMatch(namespacePattern: string, namePattern: string, object: KubeObject): boolean {
  const namespace = object.metadata?.namespace ?? '';
  const name = object.metadata?.name ?? '';
  if (namespacePattern !== '' && !wildcardMatch(namespacePattern, namespace)) return false;
  return namePattern === '' || wildcardMatch(namePattern, name);
}

/** The API resource name of a kind, as the API server's not-found message spells it (`secrets`). */
function resourceName(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s') || lower.endsWith('x') || lower.endsWith('ch') || lower.endsWith('sh')) {
    return lower === 'endpoints' ? lower : `${lower}es`;
  }
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
