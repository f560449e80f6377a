/**
 * A dry run of one request through Edict's webhooks as the API server would call them: the
 * mutating webhook paths in the order the configuration lists them (ignore, then fail), each on the
 * object the previous one left, then the validating paths on the final object. Each path's decision
 * comes from `decideReview`, the webhook's own decision function; this adds a per-rule trace and
 * writes nothing (no reports, update requests, events or metrics: the caller passes an unmetered
 * engine). Audit-only policies, which the webhook evaluates after answering, are traced too. The
 * ValidatingPolicy paths (`/vpol/ignore`, `/vpol/fail`) follow the classic validating ones, through
 * the webhook's own vpol decision when the caller gives it.
 */
import type { AdmissionRequest, FailurePolicy, ValidatingPolicyOutcome, ValidatingPolicyPath } from '@edict/admission';
import {
  admissionPatch,
  type JsonPatchOperation,
  type PolicyResponse,
  type PolicyResponseKind,
  type RuleStatus,
  type RuleType,
} from '@edict/engine';
import { type KubeObject } from '@edict/foundation';
import { decideReview, type ReviewInputs, type ReviewKind, type ReviewOutcome } from '../../webhooks/review-decision';
import { TracingEngine } from './tracing-engine';

export type WebhookPath =
  'mutate/ignore' | 'mutate/fail' | 'validate/ignore' | 'validate/fail' | 'vpol/ignore' | 'vpol/fail';

/** A `/vpol/...` path's decision for a request: the webhook's own (ValidatingPolicyReviews), unmetered. */
export type ValidatingPolicyDecision = (
  path: ValidatingPolicyPath,
  request: AdmissionRequest,
) => Promise<ValidatingPolicyOutcome>;

/** One rule's result, as the engine reported it. */
export interface RuleTrace {
  readonly webhook: WebhookPath;
  /** `admission`: decided before answering; `audit`: audit-only, evaluated after the answer (never denies). */
  readonly stage: 'admission' | 'audit';
  /** `name` for a ClusterPolicy, `namespace/name` for a Policy. */
  readonly policy: string;
  readonly policyKind: PolicyResponseKind;
  readonly rule: string;
  readonly type: RuleType;
  readonly status: RuleStatus;
  readonly message: string;
  readonly failureAction?: 'Enforce' | 'Audit';
  /** PolicyExceptions that turned the rule into `skip`. */
  readonly exceptions?: readonly string[];
  /** Time the engine took for the whole policy (it does not time rules one by one). */
  readonly policyDurationMs?: number;
  /** Mutation: this rule's own changes, from the object before it to the object after it. */
  readonly patch?: readonly JsonPatchOperation[];
}

/** One webhook path's answer. */
export interface WebhookStep {
  readonly webhook: WebhookPath;
  readonly allowed: boolean;
  readonly message?: string;
  readonly warnings: readonly string[];
  readonly patch?: readonly JsonPatchOperation[];
  /** Why the request skipped policies (resource filters, excluded namespaces or users). */
  readonly filtered?: string;
  /** The policies this path serves for the request, in the order they ran. */
  readonly policies: readonly string[];
  readonly durationMs: number;
}

/** What the webhook would queue for the background controller (not created by an evaluation). */
export interface UpdateRequestTrace {
  readonly policy: string;
  readonly rule: string;
  readonly requestType: 'mutate' | 'generate' | 'cel-generate';
}

export interface EvaluationResult {
  /** The API server's overall outcome: denied when any path denies; warnings of every path. */
  readonly allowed: boolean;
  readonly message?: string;
  readonly warnings: readonly string[];
  /** The patch from the submitted object to the object after every mutating path. */
  readonly patch?: readonly JsonPatchOperation[];
  /** The object after mutation (what validation saw), when mutation changed it. */
  readonly patchedResource?: KubeObject;
  readonly webhooks: readonly WebhookStep[];
  readonly trace: readonly RuleTrace[];
  readonly updateRequests: readonly UpdateRequestTrace[];
  readonly durationMs: number;
}

/** The API server calls the ignore webhook first (Kyverno lists it first); mutation then validation. */
const MUTATING: readonly FailurePolicy[] = ['Ignore', 'Fail'];
const VALIDATING: readonly FailurePolicy[] = ['Ignore', 'Fail'];

export async function evaluateAdmission(
  request: AdmissionRequest,
  inputs: ReviewInputs,
  validatingPolicies?: ValidatingPolicyDecision,
): Promise<EvaluationResult> {
  const started = performance.now();
  const engine = new TracingEngine(inputs.engine);
  const traced: ReviewInputs = { ...inputs, engine };
  const steps: WebhookStep[] = [];
  const trace: RuleTrace[] = [];
  const updateRequests: UpdateRequestTrace[] = [];

  let current = request;
  for (const failurePolicy of MUTATING) {
    const webhook = pathOf('mutate', failurePolicy);
    const stepStarted = performance.now();
    const outcome = await decideReview('mutate', failurePolicy, current, traced);
    steps.push(stepOf(webhook, outcome, stepStarted));
    trace.push(...(outcome.mutation?.responses ?? []).flatMap((r) => ruleTraces(webhook, 'admission', r, engine)));
    if (!outcome.decision.allowed) return finish(request, current, steps, trace, updateRequests, started);
    const patched = outcome.mutation?.patchedResource;
    if (outcome.decision.patch?.length && patched) current = { ...current, object: patched };
  }

  for (const failurePolicy of VALIDATING) {
    const webhook = pathOf('validate', failurePolicy);
    const stepStarted = performance.now();
    const outcome = await decideReview('validate', failurePolicy, current, traced);
    const after = outcome.validation?.after ? await outcome.validation.after() : undefined;
    steps.push(stepOf(webhook, outcome, stepStarted));
    const responses = outcome.validation?.responses ?? [];
    trace.push(...responses.flatMap((r) => ruleTraces(webhook, 'admission', r, engine)));
    trace.push(...(after?.auditResponses ?? []).flatMap((r) => ruleTraces(webhook, 'audit', r, engine)));
    for (const spec of outcome.validation?.updateRequests ?? [])
      updateRequests.push({ policy: spec.policy, rule: spec.rule, requestType: spec.requestType });
  }

  for (const failurePolicy of validatingPolicies ? VALIDATING : []) {
    const webhook: WebhookPath = failurePolicy === 'Fail' ? 'vpol/fail' : 'vpol/ignore';
    const stepStarted = performance.now();
    const outcome = await validatingPolicies!({ failurePolicy }, current);
    const { decision, evaluations } = outcome;
    steps.push({
      webhook,
      allowed: decision.allowed,
      ...(decision.message !== undefined ? { message: decision.message } : {}),
      warnings: decision.warnings ?? [],
      ...(outcome.filtered ? { filtered: outcome.filtered } : {}),
      policies: evaluations.map(({ compiled }) =>
        compiled.namespace ? `${compiled.namespace}/${compiled.name}` : compiled.name,
      ),
      durationMs: round(performance.now() - stepStarted),
    });
    trace.push(...evaluations.flatMap(({ response }) => ruleTraces(webhook, 'admission', response, engine)));
  }
  return finish(request, current, steps, trace, updateRequests, started);
}

function finish(
  original: AdmissionRequest,
  current: AdmissionRequest,
  steps: WebhookStep[],
  trace: RuleTrace[],
  updateRequests: UpdateRequestTrace[],
  started: number,
): EvaluationResult {
  const denial = steps.find((step) => !step.allowed);
  const warnings = steps.flatMap((step) => step.warnings);
  const before = original.object ?? undefined;
  const after = current.object ?? undefined;
  const patch = before && after && after !== before ? admissionPatch(before, after) : [];
  return {
    allowed: !denial,
    ...(denial?.message !== undefined ? { message: denial.message } : {}),
    warnings,
    ...(patch.length > 0 ? { patch } : {}),
    ...(patch.length > 0 && after ? { patchedResource: after } : {}),
    webhooks: steps,
    trace,
    updateRequests,
    durationMs: round(performance.now() - started),
  };
}

function pathOf(kind: ReviewKind, failurePolicy: FailurePolicy): WebhookPath {
  return `${kind}/${failurePolicy === 'Fail' ? 'fail' : 'ignore'}`;
}

function stepOf(webhook: WebhookPath, outcome: ReviewOutcome, started: number): WebhookStep {
  const { decision } = outcome;
  const filtered = outcome.validation?.filtered ?? outcome.mutation?.filtered;
  return {
    webhook,
    allowed: decision.allowed,
    ...(decision.message !== undefined ? { message: decision.message } : {}),
    warnings: decision.warnings ?? [],
    ...(decision.patch && decision.patch.length > 0 ? { patch: decision.patch } : {}),
    ...(filtered ? { filtered } : {}),
    policies: outcome.policies.map((policy) => policy.key),
    durationMs: round(performance.now() - started),
  };
}

/** The response's rules; for mutation each passing rule's patch against the object the rule started from. */
function ruleTraces(
  webhook: WebhookPath,
  stage: RuleTrace['stage'],
  response: PolicyResponse,
  engine: TracingEngine,
): RuleTrace[] {
  const run = engine.runOf(response);
  const policy = response.policy.namespace
    ? `${response.policy.namespace}/${response.policy.name}`
    : response.policy.name;
  let previous = run?.input;
  return response.rules.map((rule) => {
    let patch: JsonPatchOperation[] | undefined;
    if (rule.type === 'Mutation' && rule.status === 'pass' && rule.patchedResource && previous) {
      patch = admissionPatch(previous, rule.patchedResource);
      previous = rule.patchedResource;
    }
    return {
      webhook,
      stage,
      policy,
      policyKind: response.policy.kind,
      rule: rule.name,
      type: rule.type,
      status: rule.status,
      message: rule.message,
      ...(rule.failureAction ? { failureAction: rule.failureAction } : {}),
      ...(rule.exceptions && rule.exceptions.length > 0 ? { exceptions: rule.exceptions } : {}),
      ...(run ? { policyDurationMs: round(run.durationMs) } : {}),
      ...(patch ? { patch } : {}),
    };
  });
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
