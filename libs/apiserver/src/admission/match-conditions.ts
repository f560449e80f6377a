/**
 * A webhook's `matchConditions`, as kube-apiserver treats them: checked when a configuration is
 * written (at most 64, unique names, expressions that compile to bool with `object`, `oldObject`,
 * `request` and `authorizer`), and evaluated per request after rules and selectors.
 */
import {
  AccessReviews,
  CEL_LIMITS,
  CelAuthorizer,
  CelMeter,
  CelResourceCheck,
  compileCel,
  describeCelError,
  toCel,
  type AccessReviewDecision,
  type AccessReviewRequest,
} from '@edict/cel';
import { isObject, type JsonObject } from '@edict/foundation';
import type { ResourceType } from '../registry/resource-type';
import { invalid, type StatusCause } from '../status';
import type { AdmissionAttributes } from './types';
import type { Webhook } from './webhooks';

export const MAX_MATCH_CONDITIONS = 64;
const VARIABLES = { params: false, authorizer: true } as const;

const CONFIGURATION_RESOURCES = new Set(['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']);

/** Refuses a webhook configuration being written whose matchConditions kube would refuse (422 Invalid). */
export function checkMatchConditions(type: ResourceType, configuration: JsonObject): void {
  if (type.group !== 'admissionregistration.k8s.io' || !CONFIGURATION_RESOURCES.has(type.plural)) return;
  const causes = matchConditionCauses(configuration);
  if (causes.length === 0) return;
  const name = isObject(configuration.metadata) ? String(configuration.metadata.name ?? '') : '';
  throw invalid({ group: type.group, kind: type.kind, name }, causes);
}

/** kube's field errors for the matchConditions of every webhook in a configuration. */
function matchConditionCauses(configuration: JsonObject): StatusCause[] {
  const hooks = Array.isArray(configuration.webhooks) ? configuration.webhooks : [];
  const causes: StatusCause[] = [];
  hooks.forEach((hook, index) => {
    if (!isObject(hook) || hook.matchConditions === undefined || hook.matchConditions === null) return;
    const at = `webhooks[${index}].matchConditions`;
    const conditions = Array.isArray(hook.matchConditions) ? hook.matchConditions : [];
    if (conditions.length > MAX_MATCH_CONDITIONS) {
      causes.push({
        reason: 'FieldValueTooMany',
        field: at,
        message: `Too many: ${conditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`,
      });
    }
    const seen = new Set<string>();
    conditions.forEach((condition, i) => {
      const entry = isObject(condition) ? condition : {};
      const name = typeof entry.name === 'string' ? entry.name : '';
      const expression = typeof entry.expression === 'string' ? entry.expression : '';
      if (name === '') {
        causes.push({ reason: 'FieldValueRequired', field: `${at}[${i}].name`, message: 'Required value' });
      } else if (seen.has(name)) {
        causes.push({
          reason: 'FieldValueDuplicate',
          field: `${at}[${i}].name`,
          message: `Duplicate value: ${JSON.stringify(name)}`,
        });
      }
      seen.add(name);
      if (expression.trim() === '') {
        causes.push({ reason: 'FieldValueRequired', field: `${at}[${i}].expression`, message: 'Required value' });
        return;
      }
      try {
        compileCel(expression, VARIABLES, 'bool');
      } catch (error) {
        causes.push({
          reason: 'FieldValueInvalid',
          field: `${at}[${i}].expression`,
          message: `Invalid value: ${JSON.stringify(expression)}: compilation failed: ${describeCelError(error)}`,
        });
      }
    });
  });
  return causes;
}

/** Answers the access checks of `authorizer` (the server's authorization mode). */
export type Authorize = (request: AccessReviewRequest) => AccessReviewDecision;

export type MatchConditionsResult =
  { readonly matches: true } | { readonly matches: false } | { readonly error: string };

/**
 * All true: call. Any false: skip, whatever the others did. Otherwise an error (a condition that
 * errored or did not give a bool) is the caller's to judge by failurePolicy.
 */
export async function evaluateMatchConditions(
  webhook: Webhook,
  attributes: AdmissionAttributes,
  request: JsonObject,
  authorize: Authorize,
): Promise<MatchConditionsResult> {
  if (webhook.matchConditions.length === 0) return { matches: true };
  const reviews = new AccessReviews(CEL_LIMITS.maxAuthorizerChecks);
  const activation = {
    object: attributes.object === undefined ? null : toCel(attributes.object),
    oldObject: attributes.oldObject === undefined ? null : toCel(attributes.oldObject),
    request: toCel(request),
    authorizer: authorizerFor(attributes, reviews),
  };
  for (;;) {
    const errors: string[] = [];
    for (const condition of webhook.matchConditions) {
      const name = String(condition.name ?? '');
      const expression = String(condition.expression ?? '');
      const meter = new CelMeter();
      let value: unknown;
      try {
        value = meter.run(() => compileCel(expression, VARIABLES, 'bool').evaluate(activation));
      } catch (error) {
        const failure = meter.exceeded ?? reviews.exceeded ?? error;
        // kube's CEL filter wording, without the condition's name.
        errors.push(`expression '${expression}' resulted in error: ${runtimeErrorText(failure)}`);
        continue;
      }
      if (meter.exceeded ?? reviews.exceeded) {
        errors.push(`matchCondition '${name}': ${(meter.exceeded ?? reviews.exceeded)!.message}`);
      } else if (value === false) {
        return { matches: false };
      } else if (value !== true) {
        errors.push(`matchCondition '${name}' must evaluate to bool`);
      }
    }
    if (errors.length === 0) return { matches: true };
    // An error may only mean an authorizer check awaits its answer: answer and evaluate again.
    // utilerrors.NewAggregate: one error as it is, several as `[a, b]`.
    if (reviews.pending.length === 0 || reviews.exceeded)
      return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
    await reviews.resolve(async (question) => authorize(question));
  }
}

function authorizerFor(attributes: AdmissionAttributes, reviews: AccessReviews): CelAuthorizer {
  const { userInfo } = attributes;
  const subject = {
    user: userInfo.username,
    ...(userInfo.groups ? { groups: [...userInfo.groups] } : {}),
    ...(userInfo.uid ? { uid: userInfo.uid } : {}),
  };
  const authorizer = new CelAuthorizer(reviews, subject);
  const check = new CelResourceCheck(authorizer, {
    group: attributes.type.group,
    version: attributes.type.version,
    resource: attributes.type.plural,
    subresource: attributes.subresource,
    namespace: attributes.namespace,
    name: attributes.name,
  });
  return new CelAuthorizer(reviews, subject, check);
}

/** A CEL evaluation error as cel-go words it at run time: its summary, without a position. */
function runtimeErrorText(error: unknown): string {
  const summary = (error as { summary?: unknown } | null)?.summary;
  return typeof summary === 'string' ? summary : describeCelError(error);
}
