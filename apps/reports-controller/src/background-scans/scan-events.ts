/**
 * The Events Kyverno's background scan emits for one policy response (reporting component
 * `kyverno-scan`): for each rule that neither passed nor was skipped, a `PolicyViolation` on the
 * resource (`policy <policy>/<rule> <status>: <message>`) and one on the policy (`<Kind>
 * <ns>/<name>: [<rule>] <status>; <message>`, related to the resource); for each rule a
 * PolicyException skipped, `PolicySkipped` on the policy and on the exception. Success events are
 * not emitted (Kyverno's generateSuccessEvents is off by default).
 */
import { exceptionEventApiVersion, policyEventApiVersion } from '@edict/admission';
import type { EventInput, EventObjectReference } from '@edict/kube';
import type { PolicyResponse } from '@edict/engine';

export const SCAN_EVENT_SOURCE = 'kyverno-scan';

export function scanEvents(response: PolicyResponse, resourceUid: string, policyUid?: string): EventInput[] {
  const { kind, namespace, name } = response.resource;
  const resource: EventObjectReference = {
    apiVersion: response.resource.apiVersion,
    kind,
    name,
    ...(namespace ? { namespace } : {}),
    uid: resourceUid,
  };
  const policy: EventObjectReference = {
    apiVersion: policyEventApiVersion(response.policy.kind),
    kind: response.policy.kind,
    name: response.policy.name,
    ...(response.policy.namespace ? { namespace: response.policy.namespace } : {}),
    ...(policyUid ? { uid: policyUid } : {}),
  };
  const resourceText = namespace ? `${kind} ${namespace}/${name}` : `${kind} ${name}`;
  const events: EventInput[] = [];
  for (const rule of response.rules) {
    if (rule.status === 'skip') {
      for (const exception of rule.exceptions ?? [])
        events.push(
          ...exceptionEvents(exception, rule.name, policy, resource, exceptionEventApiVersion(response.policy.kind)),
        );
      continue;
    }
    if (rule.status === 'pass') continue;
    events.push({
      regarding: resource,
      type: 'Warning',
      reason: 'PolicyViolation',
      action: 'Resource Passed',
      note: `policy ${response.policy.name}/${rule.name} ${rule.status}: ${rule.message}`,
    });
    events.push({
      regarding: policy,
      related: resource,
      type: 'Warning',
      reason: 'PolicyViolation',
      action: 'Resource Passed',
      note: `${resourceText}: [${rule.name}] ${rule.status}${rule.message ? `; ${rule.message}` : ''}`,
    });
  }
  return events;
}

function exceptionEvents(
  exception: string,
  rule: string,
  policy: EventObjectReference,
  resource: EventObjectReference,
  exceptionApiVersion: string,
): EventInput[] {
  const [exceptionNamespace, exceptionName] = exception.includes('/') ? exception.split('/', 2) : ['', exception];
  const resourceKey = [resource.kind, resource.namespace, resource.name].filter(Boolean).join('/');
  const policyPath = policy.namespace ? `${policy.namespace}/${policy.name}` : policy.name;
  const skipped = { related: resource, type: 'Normal' as const, reason: 'PolicySkipped', action: 'Resource Passed' };
  return [
    {
      ...skipped,
      regarding: policy,
      note: `resource ${resourceKey} was skipped from rule ${rule} due to policy exception ${exceptionNamespace}/${exceptionName}`,
    },
    {
      ...skipped,
      regarding: {
        apiVersion: exceptionApiVersion,
        kind: 'PolicyException',
        name: exceptionName!,
        ...(exceptionNamespace ? { namespace: exceptionNamespace } : {}),
      },
      note: `resource ${resourceKey} was skipped from policy rule ${policyPath}/${rule}`,
    },
  ];
}
