/**
 * The status Kyverno writes on a ValidatingPolicy (and its Namespaced form):
 *   status:
 *     conditionStatus: { ready, conditions: [WebhookConfigured?, RBACPermissionsGranted?], message: '' }
 *     autogen: { configs: { <name>: { targets, spec } } }   (what autogen generated for pod controllers)
 *     generated: false                                      (set by the admission policy generator: kept)
 * WebhookConfigured is there when the policy runs at admission (True once the published webhook
 * configurations carry the policy at its generation); RBACPermissionsGranted when it runs in
 * background scans (True unless the reporting permissions are known to be missing). Ready when every
 * condition holds. ImageValidatingPolicies get the same, without `generated` (Kyverno's image policy
 * status has no such field). MutatingPolicies and GeneratingPolicies (and their Namespaced forms) as
 * Kyverno's status controller writes them: WebhookConfigured unless the policy runs in the background
 * only (a MutatingPolicy with admission off and background on; a GeneratingPolicy always has it), and
 * RBACPermissionsGranted always; a MutatingPolicy also carries autogen and `generated` (false: no
 * MutatingAdmissionPolicy is generated), a GeneratingPolicy nothing but conditionStatus. A
 * DeletingPolicy gets RBACPermissionsGranted alone, worded as Kyverno words it for deleting policies
 * (whether Kyverno can read what it targets), beside the lastExecutionTime the cleanup controller keeps. A policy that does not compile is not served: Ready false, a PolicyCached condition
 * False naming each field and compiler message. Conditions keep their lastTransitionTime while their
 * status stays, so writing the same status twice changes nothing (the writer compares before writing).
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { CelPolicyEntry } from './cel-policy-store';
import {
  isDeletingPolicyKind,
  isGeneratingPolicyKind,
  isImagePolicyKind,
  isMutatingPolicyKind,
} from './cel-policy-kinds';

export const WEBHOOK_CONFIGURED = 'WebhookConfigured';
export const RBAC_PERMISSIONS_GRANTED = 'RBACPermissionsGranted';
export const POLICY_CACHED = 'PolicyCached';

export const WEBHOOK_CONFIGURED_MESSAGE = 'Webhook configured.';
export const WEBHOOK_NOT_CONFIGURED_MESSAGE = 'Webhook not configured.';
export const REPORTING_READY_MESSAGE = 'Policy is ready for reporting.';
export const DELETING_ACCESS_MESSAGE = 'Kyverno can access the resources targeted by this policy.';
export const DELETING_NO_ACCESS_MESSAGE =
  'Kyverno cannot access the resources targeted by this policy, missing permissions.';

export interface CelPolicyCondition extends JsonObject {
  type: string;
  status: 'True' | 'False';
  reason: 'Succeeded' | 'Failed';
  message: string;
  lastTransitionTime: string;
}

/** What the status is judged on besides the policy itself. */
export interface CelPolicyStatusFacts {
  /** Whether the last publication carried the policy at its current generation. */
  readonly webhookConfigured: boolean;
  /** Permissions the reports controller lacks for the policy's resources (`get /v1, Resource=pods: `...). */
  readonly missingPermissions?: readonly string[];
}

/** Which conditions a compiled policy's status carries, by its kind's family (see the file comment). */
export function celStatusConditions(entry: CelPolicyEntry): { webhook: boolean; reporting: boolean } {
  const compiled = entry.compiled;
  if (!compiled) return { webhook: false, reporting: false };
  if (isGeneratingPolicyKind(entry.kind)) return { webhook: true, reporting: true };
  // A DeletingPolicy has no webhook; the other families all say whether they run at admission and in background.
  if (!('background' in compiled)) return { webhook: false, reporting: true };
  if (isMutatingPolicyKind(entry.kind)) return { webhook: compiled.admission || !compiled.background, reporting: true };
  return { webhook: compiled.admission, reporting: compiled.background };
}

/** The fields besides conditionStatus a kind's status carries, as Kyverno writes them. */
function kindFields(entry: CelPolicyEntry, current: JsonObject): JsonObject {
  const compiled = entry.compiled;
  if (isGeneratingPolicyKind(entry.kind) || isDeletingPolicyKind(entry.kind)) return {};
  const autogen = compiled && 'autogenStatus' in compiled ? compiled.autogenStatus : {};
  if (isImagePolicyKind(entry.kind)) return { autogen };
  // Owned by the admission policy generator (VAP/MAP generation): kept, false until it writes.
  const generated = typeof current.generated === 'boolean' ? current.generated : false;
  return { autogen, generated };
}

/** The status to store for `entry`, keeping transition times of conditions whose status did not change. */
export function desiredCelPolicyStatus(entry: CelPolicyEntry, facts: CelPolicyStatusFacts, now: Date): JsonObject {
  const previous = conditionsOf(entry.object.status);
  const at = rfc3339(now);
  const condition = (type: string, ok: boolean, message: string): CelPolicyCondition => {
    const status = ok ? 'True' : 'False';
    const before = previous.get(type);
    const lastTransitionTime =
      before?.status === status && typeof before.lastTransitionTime === 'string' ? before.lastTransitionTime : at;
    return { type, status, reason: ok ? 'Succeeded' : 'Failed', message, lastTransitionTime };
  };
  const compiled = entry.compiled;
  const conditions: CelPolicyCondition[] = [];
  if (!compiled) {
    const problems = entry.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    conditions.push(condition(POLICY_CACHED, false, `Policy is not cached: ${problems}`));
  } else {
    const wanted = celStatusConditions(entry);
    if (wanted.webhook) {
      const ok = facts.webhookConfigured;
      conditions.push(
        condition(WEBHOOK_CONFIGURED, ok, ok ? WEBHOOK_CONFIGURED_MESSAGE : WEBHOOK_NOT_CONFIGURED_MESSAGE),
      );
    }
    if (wanted.reporting) {
      const missing = facts.missingPermissions ?? [];
      const granted = missing.length === 0;
      const message = isDeletingPolicyKind(entry.kind)
        ? granted
          ? DELETING_ACCESS_MESSAGE
          : DELETING_NO_ACCESS_MESSAGE
        : granted
          ? REPORTING_READY_MESSAGE
          : `Policy is not ready for reporting, missing permissions: ${missing.join('; ')}.`;
      conditions.push(condition(RBAC_PERMISSIONS_GRANTED, granted, message));
    }
  }
  const current = isObject(entry.object.status) ? entry.object.status : {};
  // The message is the admission policy generator's (why no VAP/MAP was generated): kept.
  const previousStatus = isObject(current.conditionStatus) ? current.conditionStatus : {};
  const message =
    !isImagePolicyKind(entry.kind) && typeof previousStatus.message === 'string' ? previousStatus.message : '';
  return {
    ...current,
    conditionStatus: {
      ready: compiled !== undefined && conditions.every((c) => c.status === 'True'),
      conditions,
      message,
    },
    ...kindFields(entry, current),
  };
}

/** Whether the stored status already says what `desired` says (fields the writer does not set are ignored). */
export function celStatusMatches(stored: JsonValue | undefined, desired: JsonObject): boolean {
  const have = isObject(stored) ? stored : {};
  return Object.keys(desired).every((key) => canonical(have[key]) === canonical(desired[key]));
}

function conditionsOf(status: JsonValue | undefined): Map<string, JsonObject> {
  const conditionStatus = isObject(status) && isObject(status.conditionStatus) ? status.conditionStatus : {};
  const list = Array.isArray(conditionStatus.conditions) ? conditionStatus.conditions.filter(isObject) : [];
  return new Map(list.map((c) => [String(c.type), c]));
}

/** Kubernetes' metav1.Time: seconds, UTC. */
function rfc3339(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function canonical(value: JsonValue | undefined): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    isObject(v as JsonValue)
      ? Object.fromEntries(Object.entries(v as JsonObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
