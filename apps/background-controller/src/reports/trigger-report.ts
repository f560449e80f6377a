/**
 * The report of one rule the background controller applied, about its trigger, as Kyverno's
 * generate and mutate-existing controllers build it: every result the engine gave for the rule
 * (pass, fail, error, skip; an unscored policy's fail as warn), a generate pass naming the rule's
 * objects in `generated-resources`, a mutate-existing result naming its target in `patched-target`.
 * Kyverno names only the objects an attempt created or updated; here every object of the rule is
 * named, so that a second attempt of the same request (a lost status write, another leader), which
 * finds them already there, reports the same pass. Nothing is reported about a trigger without a
 * name or uid, nor about an Event (Kyverno does not let an Event own a report).
 */
import { reportResults } from '@edict/admission';
import type { PolicyResponse, ResourceRequest } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { CachedPolicy } from '@edict/policy';
import {
  buildUpdateRequestReport,
  reportedObject,
  reportSubject,
  toPolicyReportResult,
  type EphemeralReportObject,
} from '@edict/reports';

/** A rule applied to its trigger: what the engine answered, with the request it answered. */
export interface AppliedRule {
  /** Kyverno's `--enableReporting` name of the rule type. */
  readonly type: 'generate' | 'mutateExisting';
  readonly policy: CachedPolicy;
  /** The engine's request; its `resource` is the trigger. */
  readonly request: ResourceRequest;
  readonly response: PolicyResponse;
}

export function triggerReport(applied: AppliedRule, requestKey: string, now: Date): EphemeralReportObject | undefined {
  const trigger = applied.request.resource as KubeObject | undefined;
  const subject = trigger ? reportSubject(trigger) : undefined;
  if (!trigger || !subject || trigger.kind === 'Event') return undefined;
  const { compiled } = applied.policy;
  const response: PolicyResponse = {
    ...applied.response,
    rules: applied.response.rules.map((rule) => {
      const property = resultProperty(rule);
      return property ? { ...rule, properties: { ...rule.properties, ...property } } : rule;
    }),
  };
  const results = reportResults(compiled, response, applied.request, now).map(toPolicyReportResult);
  if (results.length === 0) return undefined;
  return buildUpdateRequestReport({
    requestKey,
    ...subject,
    policy: {
      kind: applied.policy.kind,
      name: applied.policy.name,
      ...(applied.policy.namespace ? { namespace: applied.policy.namespace } : {}),
      ...(applied.policy.resourceVersion ? { resourceVersion: applied.policy.resourceVersion } : {}),
    },
    results,
  });
}

function resultProperty(rule: PolicyResponse['rules'][number]): Record<string, string> | undefined {
  const named = (objects: readonly KubeObject[]) => objects.map((object) => reportedObject(object)).join('; ');
  if (rule.patchedTargets?.length) return { 'patched-target': named(rule.patchedTargets) };
  if (rule.type === 'Generation' && rule.status === 'pass' && rule.generatedResources?.length) {
    return { 'generated-resources': named(rule.generatedResources) };
  }
  return undefined;
}
