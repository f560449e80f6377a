/**
 * The status Kyverno writes on a ClusterPolicy or Policy (`kyverno.io/v1` PolicyStatus), computed
 * as a pure function of the policy object and its readiness:
 *
 *   status:
 *     conditions: [{ type: Ready, status: "True", reason: Succeeded, message: Ready, lastTransitionTime }]
 *     autogen: { rules: [...] }          # the rules autogen adds for Pod controllers (`{}` when none)
 *     rulecount: { validate, generate, mutate, verifyimages }   # the policy's own rules, not autogen's
 *     validatingadmissionpolicy: { generated: false, message: "" }
 *
 * Kyverno's webhook controller sets Ready once the policy is in the webhook configurations it
 * published, with reason `Succeeded` and message `Ready`; otherwise `False`, reason `Failed`. The
 * deprecated `ready` boolean is dropped, as Kyverno does. Other condition types are kept, and
 * `lastTransitionTime` moves only when the Ready status flips (Kubernetes' SetStatusCondition).
 */
import { isDeepStrictEqual } from 'node:util';
import { isAutogenRuleName, withAutogen, type Policy, type Rule } from '@edict/engine';
import { isError } from '@edict/foundation';
import type { CachedPolicy, InvalidPolicy } from '../cache/types';

export const READY_CONDITION = 'Ready';
export const REASON_SUCCEEDED = 'Succeeded';
export const REASON_FAILED = 'Failed';
/** Kyverno's message for a ready policy. */
export const READY_MESSAGE = 'Ready';

/** Conditions are meant for people: long problem lists are cut (Kubernetes allows 32768). */
export const MAX_CONDITION_MESSAGE = 1024;

export interface PolicyCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface PolicyRuleCount {
  validate: number;
  generate: number;
  mutate: number;
  verifyimages: number;
}

export interface PolicyStatus {
  conditions: PolicyCondition[];
  autogen: { rules?: Rule[] };
  rulecount: PolicyRuleCount;
  validatingadmissionpolicy: { generated: boolean; message: string };
}

/**
 * `pending`: the publication carried an older generation of the policy; the pass the webhook
 * controller runs on every policy change will carry this one. Until then the stored Ready
 * condition stays as it is (Kyverno keeps a policy Ready across updates), so an update does not
 * flap it to False and back; a policy without a Ready condition yet gets the message.
 */
export type PolicyReadiness =
  { readonly ready: true } | { readonly ready: false; readonly message: string; readonly pending?: boolean };

/** What the webhook controller last published: the policies its configurations were built from. */
export interface WebhookPublication {
  /** Policy key → the `metadata.generation` it was built from (undefined: the server tracks none). */
  readonly policies: ReadonlyMap<string, number | undefined>;
  /** Policy key → kinds the webhooks could not carry (discovery did not answer for them). */
  readonly unresolvedKinds: ReadonlyMap<string, readonly string[]>;
}

/** A policy as the cache holds it: valid and compiled, or kept out with its problems. */
export type PolicyEntry = { readonly valid: CachedPolicy } | { readonly invalid: InvalidPolicy };

/**
 * Ready when the policy is valid (in the cache) and the last publication carried it at its
 * current generation with every kind resolved; otherwise why not.
 */
export function policyReadiness(entry: PolicyEntry, publication: WebhookPublication | undefined): PolicyReadiness {
  if ('invalid' in entry) return { ready: false, message: invalidMessage(entry.invalid) };
  const policy = entry.valid;
  const published = publication?.policies;
  const generation = generationOf(policy.source ?? policy.compiled.policy);
  const waiting = 'Not Ready: the webhook configurations do not include the policy yet';
  if (!published?.has(policy.key)) return { ready: false, message: waiting };
  if (!sameGeneration(published.get(policy.key), generation)) return { ready: false, message: waiting, pending: true };
  const unresolved = publication?.unresolvedKinds.get(policy.key) ?? [];
  if (unresolved.length > 0) {
    return {
      ready: false,
      message: `Not Ready: API discovery did not answer for these kinds, the webhooks may miss them: ${unresolved.join(', ')}`,
    };
  }
  return { ready: true };
}

/**
 * Why an invalid policy is not Ready, and what is enforced instead: the validation errors (each as
 * `path: message`, the object being the policy itself) and, when a version stays in force, which one.
 */
export function invalidMessage(invalid: InvalidPolicy): string {
  const errors = invalid.problems.filter(isError).map((d) => (d.path ? `${d.path}: ${d.message}` : d.message));
  const found = errors.join('; ');
  const enforced = invalid.enforced;
  if (!enforced) return `Not Ready: the policy is invalid and not enforced: ${found}`;
  // What is enforced comes first: a long error list is cut at the end.
  if (enforced.basis === 'enforcing-validate-rules') {
    return (
      'Not Ready: the policy is invalid; no valid version of it is known, so its Enforce validate rules are ' +
      `enforced as written until the policy is fixed or deleted: ${found}`
    );
  }
  const lastValid = enforced.policy.source;
  const version = [
    `resourceVersion ${lastValid?.metadata?.resourceVersion ?? enforced.policy.resourceVersion ?? 'unknown'}`,
    ...(lastValid && generationOf(lastValid) !== undefined ? [`generation ${generationOf(lastValid)}`] : []),
  ].join(', ');
  return (
    `Not Ready: the policy is invalid; its last valid version (${version}) is still enforced until the policy ` +
    `is fixed or deleted: ${found}`
  );
}

/**
 * The status to write on `policy` (whose current `status` is read for the transition time and
 * the fields other controllers own). `now` is used only when the Ready status flips.
 */
export function desiredPolicyStatus(policy: Policy, readiness: PolicyReadiness, now: Date): PolicyStatus {
  const current = statusOf(policy);
  const conditions = Array.isArray(current.conditions) ? (current.conditions as PolicyCondition[]) : [];
  const previous = conditions.find((c) => c?.type === READY_CONDITION);
  const status = readiness.ready ? 'True' : 'False';
  const keep = !readiness.ready && readiness.pending === true && previous !== undefined;
  const ready: PolicyCondition = keep
    ? previous
    : {
        type: READY_CONDITION,
        status,
        reason: readiness.ready ? REASON_SUCCEEDED : REASON_FAILED,
        message: readiness.ready ? READY_MESSAGE : bounded(readiness.message),
        lastTransitionTime:
          previous?.status === status && typeof previous.lastTransitionTime === 'string'
            ? previous.lastTransitionTime
            : kubeTime(now),
      };
  const rules = rulesOf(policy);
  const autogen = rules.filter((rule) => isAutogenRuleName(rule.name));
  const vap = current.validatingadmissionpolicy;
  return normalised({
    conditions: previous
      ? conditions.map((c) => (c?.type === READY_CONDITION ? ready : c))
      : [...conditions.filter((c) => c && typeof c === 'object'), ready],
    autogen: autogen.length > 0 ? { rules: autogen } : {},
    rulecount: ruleCount(rules.filter((rule) => !isAutogenRuleName(rule.name))),
    // Owned by the admission policy generator (apps/admission-controller): kept, or Kyverno's zero value.
    validatingadmissionpolicy:
      vap && typeof vap === 'object' && !Array.isArray(vap)
        ? (vap as PolicyStatus['validatingadmissionpolicy'])
        : { generated: false, message: '' },
  });
}

/** Whether the stored status already says what `desired` says (JSON equality, key order aside). */
export function statusMatches(stored: unknown, desired: PolicyStatus): boolean {
  return isDeepStrictEqual(stored, desired);
}

export function statusOf(policy: Policy): Record<string, unknown> {
  const status = (policy as { status?: unknown }).status;
  return status && typeof status === 'object' && !Array.isArray(status) ? (status as Record<string, unknown>) : {};
}

/** `metadata.generation`, which a real API server bumps on spec changes only (never on status writes). */
export function generationOf(policy: Policy): number | undefined {
  const generation = (policy.metadata as { generation?: unknown } | undefined)?.generation;
  return typeof generation === 'number' ? generation : undefined;
}

/** Counts as Kyverno does: a rule has a type when that block is present and not empty. */
function ruleCount(rules: readonly Rule[]): PolicyRuleCount {
  const has = (value: unknown): boolean =>
    Array.isArray(value) ? value.length > 0 : !!value && typeof value === 'object' && Object.keys(value).length > 0;
  return {
    validate: rules.filter((r) => has(r.validate)).length,
    generate: rules.filter((r) => has(r.generate)).length,
    mutate: rules.filter((r) => has(r.mutate)).length,
    verifyimages: rules.filter((r) => has(r.verifyImages)).length,
  };
}

/** The rules Kyverno evaluates (own rules, then autogen's); the policy's own when autogen fails on odd input. */
function rulesOf(policy: Policy): Rule[] {
  let rules: unknown;
  try {
    rules = withAutogen(policy).spec?.rules;
  } catch {
    rules = policy.spec?.rules;
  }
  return Array.isArray(rules)
    ? rules.filter((r): r is Rule => !!r && typeof r === 'object' && typeof (r as Rule).name === 'string')
    : [];
}

function sameGeneration(published: number | undefined, current: number | undefined): boolean {
  return published === undefined || current === undefined || published === current;
}

function bounded(message: string): string {
  return message.length <= MAX_CONDITION_MESSAGE ? message : `${message.slice(0, MAX_CONDITION_MESSAGE - 3)}...`;
}

/** RFC 3339 in seconds, as Kubernetes serialises metav1.Time. */
function kubeTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** As the API server will store it: plain JSON (no undefined members), so comparisons hold. */
function normalised(status: PolicyStatus): PolicyStatus {
  return JSON.parse(JSON.stringify(status)) as PolicyStatus;
}
