/**
 * The Events Kyverno's background controller emits (pkg/event NewBackgroundFailedEvent,
 * NewBackgroundSuccessEvent, NewResourceGenerationEvent), as recorder inputs:
 *  - a failed rule: `PolicyError` on the policy, related to the trigger or target,
 *    `policy <policy>/<rule> error: <why>`, action `None`;
 *  - each object a rule generated or mutated: `PolicyApplied` on the policy, related to the object,
 *    `resource generated` (action `Resource Generated`) or `resource mutated` (`Resource Mutated`);
 *  - each object a generate rule created: `PolicyApplied` on the object itself,
 *    `Created <Kind> <name> as a result of applying policy <policy>/<rule>`, action `None`.
 * Sources: `kyverno-generate` and `kyverno-mutate` (Kyverno's GeneratePolicyController and
 * MutateExistingController).
 */
import type { EventInput, EventObjectReference } from '@edict/kube';

export const GENERATE_EVENT_SOURCE = 'kyverno-generate';
export const MUTATE_EXISTING_EVENT_SOURCE = 'kyverno-mutate';
export type BackgroundEventSource = typeof GENERATE_EVENT_SOURCE | typeof MUTATE_EXISTING_EVENT_SOURCE;

export interface PolicyIdentity {
  /** Default `kyverno.io/v1` (classic policies); the CEL kinds are `policies.kyverno.io/...`. */
  readonly apiVersion?: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
}

export interface ResourceIdentity {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly uid?: string;
}

/** The identity of an object as events name it. */
export function identityOf(object: {
  apiVersion?: string;
  kind?: string;
  metadata?: { namespace?: string; name?: string; uid?: string };
}): ResourceIdentity {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata?.namespace,
    name: object.metadata?.name,
    uid: object.metadata?.uid,
  };
}

export function backgroundFailedEvent(
  policy: PolicyIdentity,
  rule: string,
  resource: ResourceIdentity,
  error: string,
): EventInput {
  return {
    regarding: policyRef(policy),
    related: resourceRef(resource),
    type: 'Warning',
    reason: 'PolicyError',
    action: 'None',
    note: `policy ${policy.name}/${rule} error: ${error}`,
  };
}

export function backgroundSuccessEvent(
  policy: PolicyIdentity,
  resource: ResourceIdentity,
  kind: 'generate' | 'mutate',
): EventInput {
  return {
    regarding: policyRef(policy),
    related: resourceRef(resource),
    type: 'Normal',
    reason: 'PolicyApplied',
    action: kind === 'generate' ? 'Resource Generated' : 'Resource Mutated',
    note: kind === 'generate' ? 'resource generated' : 'resource mutated',
  };
}

/**
 * The ConfigMap's `successEventActions`, as the admission controller applies it: when set, a success
 * Event (type Normal) whose action it does not list (`Resource Generated`, `Resource Mutated`) is
 * not emitted; empty, every one is. Events with no action (`None`: a failure, or the note on a
 * generated object) are not filtered by it.
 */
export function successEventAllowed(event: EventInput, actions: readonly string[]): boolean {
  if (actions.length === 0 || event.type !== 'Normal' || !event.action || event.action === 'None') return true;
  return actions.includes(event.action);
}

/** `policyKey` is the UpdateRequest's `spec.policy` (`name` or `namespace/name`), as Kyverno writes it. */
export function resourceGeneratedEvent(policyKey: string, rule: string, resource: ResourceIdentity): EventInput {
  return {
    regarding: resourceRef(resource),
    type: 'Normal',
    reason: 'PolicyApplied',
    action: 'None',
    note: `Created ${resource.kind ?? ''} ${resource.name ?? ''} as a result of applying policy ${policyKey}/${rule}`,
  };
}

function policyRef(policy: PolicyIdentity): EventObjectReference {
  return {
    apiVersion: policy.apiVersion ?? 'kyverno.io/v1',
    kind: policy.kind,
    name: policy.name,
    ...(policy.namespace ? { namespace: policy.namespace } : {}),
    ...(policy.uid ? { uid: policy.uid } : {}),
  };
}

function resourceRef(resource: ResourceIdentity): EventObjectReference {
  return {
    ...(resource.apiVersion ? { apiVersion: resource.apiVersion } : {}),
    kind: resource.kind ?? '',
    name: resource.name ?? '',
    ...(resource.namespace ? { namespace: resource.namespace } : {}),
    ...(resource.uid ? { uid: resource.uid } : {}),
  };
}
