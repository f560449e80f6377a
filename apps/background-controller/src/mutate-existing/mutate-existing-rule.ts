/**
 * A mutate-existing UpdateRequest, as Kyverno's mutate-existing controller runs it: the trigger
 * (from the cluster, or the admission request for UPDATE/DELETE), the rule evaluated by the engine
 * (targets loaded with their context and preconditions, then patched), and each patched target
 * written back with the resourceVersion it was read at (a concurrent change makes the write fail
 * and the request retry). Each target's outcome is an Event on the policy; the engine's results are
 * reported about the trigger; failures fail the request.
 */
import type { UpdateRequestSpec } from '@edict/admission';
import { TenantWriteRefused } from '@edict/context';
import { type KubeObject, errorMessage } from '@edict/foundation';
import type { CachedPolicy } from '@edict/policy';
import {
  backgroundFailedEvent,
  backgroundSuccessEvent,
  identityOf,
  MUTATE_EXISTING_EVENT_SOURCE,
} from '../events/background-events';
import { backgroundRequest, resolveTrigger } from '../update-requests/background-request';
import {
  done,
  failed,
  onlyRule,
  policyIdentity,
  type RuleWorkDeps,
  type RuleWorkOutcome,
} from '../update-requests/rule-work';

export async function mutateExistingForRequest(
  spec: UpdateRequestSpec,
  cached: CachedPolicy,
  deps: RuleWorkDeps,
): Promise<RuleWorkOutcome> {
  const rule = cached.compiled.mutateRules.find(
    (candidate) => candidate.name === spec.rule && candidate.mutate?.targets,
  );
  if (!rule) return done();
  const policy = policyIdentity(cached);
  let trigger;
  try {
    trigger = await resolveTrigger(spec, spec.resource, deps.cluster, { preferCluster: false });
  } catch (error) {
    return failed(`rule ${rule.name} failed: failed to get trigger resource: ${errorMessage(error)}`);
  }
  let request;
  let response;
  try {
    request = backgroundRequest(spec, trigger, await deps.namespaceLabels(trigger.metadata?.namespace));
    response = await deps.engine.mutate(onlyRule(cached.compiled, 'mutateRules', rule), request);
  } catch (error) {
    return failed(`rule ${rule.name} failed: ${errorMessage(error)}`);
  }
  const errors: string[] = [];
  for (const result of response.rules) {
    if (result.status === 'skip') continue;
    if (result.status !== 'pass') {
      errors.push(
        `failed to mutate existing resource, rule ${result.name}, response ${result.status}: ${result.message}`,
      );
      continue;
    }
    for (const target of (result.patchedTargets ?? []) as KubeObject[]) {
      try {
        await deps.cluster.replace(target);
        deps.emit(MUTATE_EXISTING_EVENT_SOURCE, backgroundSuccessEvent(policy, identityOf(target), 'mutate'));
      } catch (error) {
        errors.push(
          error instanceof TenantWriteRefused ? `rule ${rule.name}: ${errorMessage(error)}` : errorMessage(error),
        );
        deps.emit(
          MUTATE_EXISTING_EVENT_SOURCE,
          backgroundFailedEvent(policy, rule.name, identityOf(target), errorMessage(error)),
        );
      }
    }
  }
  // Kyverno reports the engine's results once the targets were written (or failed to be).
  await deps.report({ type: 'mutateExisting', policy: cached, request, response });
  return errors.length > 0 ? failed(errors.join('; ')) : done();
}
