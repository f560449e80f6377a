/**
 * A ValidatingAdmissionPolicy with its bindings on one request, as kube-apiserver's dispatcher
 * decides it: the policy's matchConstraints, then per binding its matchResources, its params
 * (each evaluated), the binding's validationActions on every denial (Deny, Warn, Audit), audit
 * annotations keyed `<policy>/<key>`, and kube's message for the first denial.
 */
import { AccessReviews, CEL_LIMITS } from '@edict/cel';
import { errorMessage, type EvaluationDeadline, type JsonObject } from '@edict/foundation';
import { CelRound, DEFAULT_BOUNDS, inRounds, type Authorize, type CelBounds } from '../cel/round';
import type { EquivalentResources } from '../matching/equivalents';
import { matchResources } from '../matching/match-resources';
import { isExemptAdmissionConfiguration } from '../matching/rules';
import { celRequestOf } from '../request';
import type { AdmissionAttributes } from '../types';
import { authorizerFor, celValue, namespaceObjectFor } from './activation';
import type { CompiledValidatingAdmissionPolicy } from './compile';
import { collectParams, paramsFromObjects, type ParamSource } from './params';
import { readBinding, type BindingSpec, type ValidationAction } from './spec';
import { validate, type AuditAnnotationResult, type PolicyDecision } from './validator';

export interface VapContext {
  /** The request namespace's object; null or absent when there is none (cluster-scoped requests). */
  namespaceObject?: JsonObject | null;
  /** Where the bindings' parameter objects come from: a source, or the objects themselves. */
  params?: ParamSource | readonly JsonObject[];
  /** Answers `authorizer` checks; without it every check is an errored decision. */
  authorize?: Authorize;
  deadline?: EvaluationDeadline;
  bounds?: CelBounds;
  equivalents?: EquivalentResources;
}

/** One parameter object's call: the param (null when the policy takes none) and kube's decisions. */
export interface VapCall {
  param: JsonObject | null;
  /** Empty when the matchConditions were not met. */
  decisions: PolicyDecision[];
  auditAnnotations: AuditAnnotationResult[];
}

export interface VapBindingEvaluation {
  binding: string;
  validationActions: ValidationAction[];
  /** Why the binding could not run (its match failed, its params are missing): kube denies with it. */
  configError?: string;
  calls: VapCall[];
}

/** kube's `validation.policy.admission.k8s.io/validation_failure` entry for an Audit action. */
export interface ValidationFailure {
  message: string;
  policy: string;
  binding: string;
  expressionIndex: number;
  validationActions: ValidationAction[];
}

export interface VapDenial {
  message: string;
  /** A StatusReason: the validation's reason, Invalid by default. */
  reason: string;
  /** The HTTP code kube answers with for the reason. */
  code: number;
  binding?: string;
}

export interface VapEvaluation {
  policy: string;
  /** The policy's matchConstraints cover the request (bindings are looked at only then). */
  matched: boolean;
  /** The bindings of the policy whose matchResources cover the request. */
  bindings: VapBindingEvaluation[];
  /** The first denial, worded as kube-apiserver words it; absent when the request is admitted. */
  denied?: VapDenial;
  /** Warn actions, as kube sends them in `Warning` headers. */
  warnings: string[];
  /** Published audit annotations, keyed `<policy>/<key>`. */
  auditAnnotations: Record<string, string>;
  /** Audit actions. */
  validationFailures: ValidationFailure[];
}

/** kube truncates an audit annotation's value to 10 KiB. */
const MAX_AUDIT_ANNOTATION_VALUE = 10 * 1024;

/**
 * Evaluates `compiled` with the given bindings (those of other policies are ignored) on a request.
 */
export async function evaluateValidatingAdmissionPolicy(
  compiled: CompiledValidatingAdmissionPolicy,
  bindings: JsonObject | readonly JsonObject[],
  attributes: AdmissionAttributes,
  context: VapContext = {},
): Promise<VapEvaluation> {
  const policy = compiled.name;
  const result: VapEvaluation = {
    policy,
    matched: false,
    bindings: [],
    warnings: [],
    auditAnnotations: {},
    validationFailures: [],
  };
  if (isExemptAdmissionConfiguration(attributes)) return result;
  // kube requires matchConstraints: a policy without them applies to nothing.
  if (!compiled.spec.matchConstraints) return result;
  const namespaceObject = context.namespaceObject ?? null;
  const definition = matchResources(compiled.spec.matchConstraints, attributes, namespaceObject, context);
  // kube drops an error of the policy's own match: the policy then does not apply.
  if (!definition.matches) return result;
  result.matched = true;

  const denials: { decision: PolicyDecision; binding?: string }[] = [];
  const annotations = new Map<string, string[]>();
  const list = Array.isArray(bindings) ? bindings : [bindings as JsonObject];
  for (const raw of list) {
    const binding = readBinding(raw);
    if (binding.policyName !== policy) continue;
    const evaluation = await evaluateBinding(compiled, binding, attributes, definition, namespaceObject, context);
    if (!evaluation) continue;
    result.bindings.push(evaluation);
    if (evaluation.configError !== undefined) {
      if (compiled.spec.failurePolicy === 'Fail') {
        denials.push({
          decision: { action: 'Deny', evaluation: 'Error', message: evaluation.configError },
          binding: binding.name,
        });
      }
      continue;
    }
    for (const call of evaluation.calls) {
      call.decisions.forEach((decision, index) => {
        if (decision.action !== 'Deny') return;
        for (const action of binding.validationActions) {
          if (action === 'Deny') denials.push({ decision, binding: binding.name });
          else if (action === 'Audit') {
            result.validationFailures.push({
              message: decision.message,
              policy: binding.policyName,
              binding: binding.name,
              expressionIndex: index,
              validationActions: binding.validationActions,
            });
          } else if (action === 'Warn') {
            result.warnings.push(
              `Validation failed for ValidatingAdmissionPolicy '${policy}' with binding '${binding.name}': ${decision.message}`,
            );
          }
        }
      });
      for (const annotation of call.auditAnnotations) {
        if (annotation.action === 'Publish') {
          const value = annotation.value!.slice(0, MAX_AUDIT_ANNOTATION_VALUE);
          const values = annotations.get(annotation.key) ?? [];
          if (!values.includes(value)) values.push(value);
          annotations.set(annotation.key, values);
        } else if (annotation.action === 'Error') {
          // An audit annotation that fails under failurePolicy Fail denies, whatever the actions.
          denials.push({
            decision: { action: 'Deny', evaluation: 'Error', message: annotation.error ?? '' },
            binding: binding.name,
          });
        }
      }
    }
  }
  for (const [key, values] of annotations) result.auditAnnotations[`${policy}/${key}`] = values.join(', ');
  const first = denials[0];
  if (first) {
    const message =
      first.binding !== undefined
        ? `ValidatingAdmissionPolicy '${policy}' with binding '${first.binding}' denied request: ${first.decision.message}`
        : `ValidatingAdmissionPolicy '${policy}' denied request: ${first.decision.message}`;
    const reason = first.decision.reason || 'Invalid';
    result.denied = {
      message,
      reason,
      code: codeOf(reason),
      ...(first.binding !== undefined ? { binding: first.binding } : {}),
    };
  }
  return result;
}

/** One binding on the request: undefined when its matchResources do not cover it. */
export async function evaluateBinding(
  compiled: CompiledValidatingAdmissionPolicy,
  binding: BindingSpec,
  attributes: AdmissionAttributes,
  matched: { resource: AdmissionAttributes['resource']; kind: AdmissionAttributes['kind'] },
  namespaceObject: JsonObject | null,
  context: VapContext,
): Promise<VapBindingEvaluation | undefined> {
  const evaluation: VapBindingEvaluation = {
    binding: binding.name,
    validationActions: binding.validationActions,
    calls: [],
  };
  if (binding.matchResources) {
    const decision = matchResources(binding.matchResources, attributes, namespaceObject, context);
    if (!decision.matches) {
      if (decision.error === undefined) return undefined;
      evaluation.configError = `failed to configure binding: ${decision.error}`;
      return evaluation;
    }
  }
  let params: (JsonObject | null)[];
  try {
    const source = Array.isArray(context.params)
      ? paramsFromObjects(context.params)
      : (context.params as ParamSource | undefined);
    params = await collectParams(compiled.spec.paramKind, binding, attributes.namespace, source);
  } catch (error) {
    evaluation.configError = `failed to configure binding: ${errorMessage(error)}`;
    return evaluation;
  }
  const request = celRequestOf(attributes, matched);
  // A Namespace's requests carry its own name as namespace; kube gives them no namespaceObject.
  const isNamespace =
    attributes.kind.group === '' && attributes.kind.version === 'v1' && attributes.kind.kind === 'Namespace';
  const namespace = isNamespace || attributes.namespace === '' ? null : namespaceObjectFor(namespaceObject);
  for (const param of params) {
    const reviews = new AccessReviews(CEL_LIMITS.maxAuthorizerChecks);
    const input = {
      object: celValue(attributes.object),
      oldObject: celValue(attributes.oldObject),
      request: celValue(request),
      namespaceObject: celValue(namespace),
      params: withTypeMeta(param, compiled),
      authorizer: authorizerFor(attributes, reviews),
    };
    const makeRound = () => new CelRound(reviews, context.bounds ?? DEFAULT_BOUNDS, context.deadline);
    const result = await inRounds(reviews, context.authorize, () => validate(compiled, makeRound, input));
    evaluation.calls.push({ param, ...result });
  }
  return evaluation;
}

/** kube gives params their apiVersion and kind when the stored object lacks them. */
function withTypeMeta(param: JsonObject | null, compiled: CompiledValidatingAdmissionPolicy): unknown {
  if (!param) return null;
  const kind = compiled.spec.paramKind;
  if (!kind || (param.apiVersion && param.kind)) return celValue(param);
  return celValue({ ...param, apiVersion: kind.apiVersion, kind: kind.kind });
}

/** The HTTP code of a StatusReason a validation may give (reasonToCode). */
function codeOf(reason: string): number {
  if (reason === 'Forbidden') return 403;
  if (reason === 'RequestEntityTooLarge') return 413;
  return 422;
}
