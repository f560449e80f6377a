/**
 * The Events Kyverno emits for an admission review (pkg/webhooks/utils GenerateEvents and
 * pkg/event NewPolicyFailEvent / NewResourceViolationEvent / NewPolicyAppliedEvent /
 * NewPolicyExceptionEvents), as recorder inputs:
 *  - a policy response with a failed or errored rule: for each such rule a `PolicyViolation` on the
 *    policy (related: the resource), `<Kind> <ns>/<name>: [<rule>] <status>[ (blocked)][; <message>]`,
 *    action `Resource Blocked` or `Resource Passed`; and, when the request was admitted, for every
 *    rule of that response a `PolicyViolation` on the resource, `policy <policy>/<rule> <status>: <message>`;
 *  - a response whose rules were all skipped by exceptions: `PolicySkipped` on the policy and on
 *    the exception (admitted requests only);
 *  - any other non-empty response: `PolicyApplied` on the policy, `<Kind> <ns>/<name>: pass` (action
 *    `Resource Passed`), or for a policy that only mutates `<Kind> <ns>/<name> is successfully mutated`
 *    (action `Resource Mutated`).
 * Events are Warning unless the reason is PolicyApplied or PolicySkipped. Reasons listed in
 * `omit` (Kyverno's --omitEvents; the chart omits PolicyApplied and PolicySkipped) are left out, and
 * so, as Kyverno's event generator drops them, are PolicyApplied events unless the ConfigMap's
 * `generateSuccessEvents` is on, and those whose action its `successEventActions` (when set) does
 * not list.
 */
import { exceptionEventApiVersion, policyEventApiVersion } from '@edict/admission';
import type { EventInput, EventObjectReference } from '@edict/kube';
import type { PolicyResponse, RuleResponse } from '@edict/engine';

export type EventReason = 'PolicyViolation' | 'PolicyApplied' | 'PolicySkipped' | 'PolicyError';

/** What the cache knows of a policy, for the event's `regarding` reference. */
export interface PolicyIdentity {
  uid?: string;
  resourceVersion?: string;
}

export interface AdmissionEventOptions {
  blocked: boolean;
  omit?: readonly string[];
  /** The ConfigMap's `generateSuccessEvents` and `successEventActions`; without it, every success event. */
  successEvents?: { readonly enabled: boolean; readonly actions: readonly string[] };
  /** The resource's uid (the admission object's), when known. */
  resourceUid?: string;
  policyIdentity?: (response: PolicyResponse) => PolicyIdentity | undefined;
  /** Whether the response's policy mutates and neither validates nor verifies images. */
  onlyMutates?: (response: PolicyResponse) => boolean;
}

export function admissionEvents(responses: readonly PolicyResponse[], options: AdmissionEventOptions): EventInput[] {
  // Omitted reasons are decided before their events are built: the chart omits PolicyApplied,
  // which every passing policy of every review would otherwise build.
  const omit = new Set(options.omit ?? []);
  const events: EventInput[] = [];
  for (const response of responses) {
    if (response.rules.length === 0) continue;
    const failing = response.rules.some((rule) => rule.status === 'fail' || rule.status === 'error');
    const reason: EventReason = failing
      ? 'PolicyViolation'
      : response.rules.every((rule) => rule.status === 'skip')
        ? 'PolicySkipped'
        : 'PolicyApplied';
    if (omit.has(reason) || (reason === 'PolicySkipped' && options.blocked)) continue;
    const policy = policyRef(response, options.policyIdentity?.(response));
    const resource = resourceRef(response, options.resourceUid);
    if (reason === 'PolicyViolation') {
      for (const rule of response.rules) {
        if (rule.status === 'fail' || rule.status === 'error') {
          events.push({
            regarding: policy,
            related: resource,
            type: 'Warning',
            reason,
            action: options.blocked ? 'Resource Blocked' : 'Resource Passed',
            note: policyNote(response, rule, options.blocked),
          });
        }
        // Kyverno adds the resource event for every rule of a failing response, passing ones too.
        if (!options.blocked) {
          events.push({
            regarding: resource,
            type: 'Warning',
            reason,
            action: 'Resource Passed',
            note: `policy ${response.policy.name}/${rule.name} ${rule.status}: ${rule.message}`,
          });
        }
      }
    } else if (reason === 'PolicySkipped') {
      events.push(...exceptionEvents(response, policy, resource));
    } else {
      const mutated = options.onlyMutates?.(response) === true;
      const action = mutated ? 'Resource Mutated' : 'Resource Passed';
      const success = options.successEvents;
      if (success && (!success.enabled || (success.actions.length > 0 && !success.actions.includes(action)))) continue;
      events.push({
        regarding: policy,
        related: resource,
        type: 'Normal',
        reason,
        action,
        note: mutated ? `${resourceText(response)} is successfully mutated` : `${resourceText(response)}: pass`,
      });
    }
  }
  return events;
}

function exceptionEvents(response: PolicyResponse, policy: EventObjectReference, resource: EventObjectReference) {
  const events: EventInput[] = [];
  const key = resourceKey(response);
  const policyPath = response.policy.namespace
    ? `${response.policy.namespace}/${response.policy.name}`
    : response.policy.name;
  for (const rule of response.rules) {
    for (const exception of rule.exceptions ?? []) {
      const [namespace, name] = exception.includes('/') ? exception.split('/', 2) : ['', exception];
      events.push({
        regarding: policy,
        related: resource,
        type: 'Normal',
        reason: 'PolicySkipped',
        action: 'Resource Passed',
        note: `resource ${key} was skipped from rule ${rule.name} due to policy exception ${namespace}/${name}`,
      });
      events.push({
        regarding: {
          apiVersion: exceptionEventApiVersion(response.policy.kind),
          kind: 'PolicyException',
          name: name!,
          namespace: namespace || undefined,
        },
        related: resource,
        type: 'Normal',
        reason: 'PolicySkipped',
        action: 'Resource Passed',
        note: `resource ${key} was skipped from policy rule ${policyPath}/${rule.name}`,
      });
    }
  }
  return events;
}

function policyNote(response: PolicyResponse, rule: RuleResponse, blocked: boolean): string {
  let note = `${resourceText(response)}: [${rule.name}] ${rule.status}`;
  if (blocked) note += ' (blocked)';
  if (rule.message) note += `; ${rule.message}`;
  return note;
}

/** `Kind ns/name` or `Kind name`. */
function resourceText(response: PolicyResponse): string {
  const { kind, namespace, name } = response.resource;
  return namespace ? `${kind} ${namespace}/${name}` : `${kind} ${name}`;
}

/** `Kind/ns/name` or `Kind/name` (Kyverno's resourceKey). */
function resourceKey(response: PolicyResponse): string {
  const { kind, namespace, name } = response.resource;
  return namespace ? `${kind}/${namespace}/${name}` : `${kind}/${name}`;
}

function policyRef(response: PolicyResponse, identity: PolicyIdentity | undefined): EventObjectReference {
  return {
    apiVersion: policyEventApiVersion(response.policy.kind),
    kind: response.policy.kind,
    name: response.policy.name,
    ...(response.policy.namespace ? { namespace: response.policy.namespace } : {}),
    ...(identity?.uid ? { uid: identity.uid } : {}),
    ...(identity?.resourceVersion ? { resourceVersion: identity.resourceVersion } : {}),
  };
}

function resourceRef(response: PolicyResponse, uid: string | undefined): EventObjectReference {
  const { apiVersion, kind, name, namespace } = response.resource;
  return { apiVersion, kind, name, ...(namespace ? { namespace } : {}), ...(uid ? { uid } : {}) };
}
