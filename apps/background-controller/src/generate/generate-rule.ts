/**
 * One generate rule context of an UpdateRequest, as Kyverno's generate controller runs it: the
 * trigger read again, the rule evaluated by the engine against it (match, context, preconditions,
 * exceptions, then the objects with Kyverno's labels), and the objects written. A failure is
 * reported as a PolicyError Event and fails the request (which is retried); objects created are
 * announced when the ConfigMap's `generateSuccessEvents` is on. The engine's result is reported
 * about the trigger (a pass once its objects are written).
 */
import type { UpdateRequestResourceSpec, UpdateRequestSpec } from '@edict/admission';
import type { GenerationRuleResponse } from '@edict/engine';
import type { CachedPolicy } from '@edict/policy';
import {
  backgroundFailedEvent,
  backgroundSuccessEvent,
  GENERATE_EVENT_SOURCE,
  identityOf,
  resourceGeneratedEvent,
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
import { applyDownstream } from './apply-downstream';
import { deleteGeneratedFor, markCloneSources } from './synchronized-downstream';
import { errorMessage } from '@edict/foundation';

/** Kyverno's message when the rule no longer matches the trigger. */
export const DOES_NOT_APPLY = 'policy does not apply to resource';

export async function generateForRule(
  spec: UpdateRequestSpec,
  ruleContext: UpdateRequestSpec['ruleContext'][number],
  cached: CachedPolicy,
  deps: RuleWorkDeps,
): Promise<RuleWorkOutcome> {
  const rule = cached.compiled.generateRules.find((candidate) => candidate.name === ruleContext.rule);
  // The rule was removed from the policy since: nothing left to do (Kyverno skips it too).
  if (!rule) return done();
  const policy = policyIdentity(cached);
  const triggerSpec = ruleContext.trigger ?? spec.resource;
  if (ruleContext.deleteDownstream && triggerSpec.uid) {
    try {
      await deleteGeneratedFor(rule, cached, triggerSpec, deps.cluster);
      return done();
    } catch (error) {
      return failed(`rule ${rule.name} failed: failed to delete downstream resources: ${errorMessage(error)}`);
    }
  }
  let trigger;
  try {
    trigger = await resolveTrigger(spec, triggerSpec, deps.cluster, { preferCluster: true });
  } catch (error) {
    return failed(`rule ${rule.name} failed: failed to fetch trigger resource: ${errorMessage(error)}`);
  }
  const fail = (message: string, generated: UpdateRequestResourceSpec[] = []) => {
    deps.emit(GENERATE_EVENT_SOURCE, backgroundFailedEvent(policy, rule.name, identityOf(trigger), message));
    return failed(`rule ${rule.name} failed: ${message}`, generated);
  };
  try {
    const request = backgroundRequest(spec, trigger, await deps.namespaceLabels(trigger.metadata?.namespace));
    const response = await deps.engine.generate(onlyRule(cached.compiled, 'generateRules', rule), request);
    const result = response.rules[0] as GenerationRuleResponse | undefined;
    if (!result) {
      // Not an error to retry: the trigger no longer matches. Kyverno reports it and moves on.
      deps.emit(GENERATE_EVENT_SOURCE, backgroundFailedEvent(policy, rule.name, identityOf(trigger), DOES_NOT_APPLY));
      return done();
    }
    const report = () => deps.report({ type: 'generate', policy: cached, request, response });
    if (result.status === 'skip') {
      await report();
      return done();
    }
    if (result.status !== 'pass') {
      await report();
      return fail(result.message);
    }
    const details = result.generation;
    if (details?.synchronize === true) {
      // Kyverno only logs a failure here: the copies are still written, only source changes go unseen.
      await markCloneSources(details.sources, deps.cluster).catch(() => undefined);
    }
    const { created } = await applyDownstream(
      result.generatedResources ?? [],
      details?.synchronize === true,
      deps.cluster,
      details?.useServerSideApply === true,
    );
    const generated = created.map(resourceSpec);
    if (deps.generateSuccessEvents()) {
      for (const object of generated) {
        deps.emit(GENERATE_EVENT_SOURCE, resourceGeneratedEvent(spec.policy, rule.name, object));
        deps.emit(GENERATE_EVENT_SOURCE, backgroundSuccessEvent(policy, object, 'generate'));
      }
    }
    const problems = [
      ...(details?.error ? [details.error] : []),
      ...(details?.notGenerated ?? []).filter((entry) => entry.failed).map((entry) => entry.reason),
    ];
    if (problems.length > 0) return fail(problems.join('; '), generated);
    // Kyverno reports a pass only once the objects are written.
    await report();
    return done(generated);
  } catch (error) {
    return fail(errorMessage(error));
  }
}

function resourceSpec(object: {
  apiVersion?: string;
  kind?: string;
  metadata?: { namespace?: string; name?: string; uid?: string };
}): UpdateRequestResourceSpec {
  return {
    apiVersion: object.apiVersion ?? '',
    kind: object.kind ?? '',
    ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
    name: object.metadata?.name ?? '',
    ...(object.metadata?.uid ? { uid: object.metadata.uid } : {}),
  };
}
