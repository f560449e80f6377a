/**
 * The webhook admission chain: stored Mutating/ValidatingWebhookConfigurations are read on every
 * request (so changes apply at once), matching webhooks are called, mutating ones in order with each
 * seeing the previous one's patch, then validating ones in parallel.
 *
 * A webhook's matchConditions are evaluated after its rules and selectors, on the object as the
 * previous mutating webhooks left it.
 *
 * Approximations: `reinvocationPolicy: IfNeeded` webhooks are not re-invoked; matchPolicy
 * Equivalent only spans versions of the same resource and the request keeps its own version.
 */
import { randomUUID } from 'node:crypto';
import { type JsonObject, errorMessage, isObject } from '@edict/foundation';
import { applyJsonPatch } from '../patch/json-patch';
import { internalError } from '../status';
import { callWebhook, type ServiceEndpoints } from './caller';
import { callingError, deniedError, dryRunUnsupported, matchConditionsForbidden } from './errors';
import { evaluateMatchConditions, type Authorize } from './match-conditions';
import { shouldCall, type NamespaceLabels } from './matching';
import { admissionReview, verifyAdmissionResponse, type AdmissionResponse } from './review';
import type { AdmissionAttributes, AdmissionChain } from './types';
import { WebhookAgents, type WebhookAgentOptions } from './webhook-agents';
import type { WebhookCallLog } from './webhook-calls';
import { webhooksOf, type Webhook } from './webhooks';

export interface WebhookSource {
  mutatingConfigurations(): readonly JsonObject[];
  validatingConfigurations(): readonly JsonObject[];
  namespaceLabels: NamespaceLabels;
  /** Answers matchConditions' `authorizer` checks. */
  authorize: Authorize;
}

/** A failed call, to be judged by the webhook's failurePolicy. */
class CallFailure extends Error {}

export class WebhookAdmission implements AdmissionChain {
  /** Kept-alive connections per webhook endpoint, as kube-apiserver keeps a client per webhook. */
  private readonly agents: WebhookAgents;

  constructor(
    private readonly source: WebhookSource,
    private readonly endpoints: ServiceEndpoints = {},
    agentOptions: WebhookAgentOptions = {},
    /** Where each call made is recorded. */
    private readonly calls?: WebhookCallLog,
  ) {
    this.agents = new WebhookAgents(agentOptions);
  }

  /** Closes the kept-alive webhook connections. */
  close(): void {
    this.agents.destroy();
  }

  async mutate(attributes: AdmissionAttributes, warnings: string[]): Promise<JsonObject | undefined> {
    let current = attributes;
    for (const webhook of this.matching('mutating', attributes)) {
      const response = await this.invoke(webhook, current, warnings);
      if (!response?.patch || response.patch.length === 0) continue;
      if (current.object === undefined) {
        throw internalError(
          `admission webhook "${webhook.name}" attempted to modify the object, which is not supported for this operation`,
        );
      }
      let patched: JsonObject;
      try {
        patched = applyJsonPatch(current.object, response.patch);
      } catch (error) {
        throw internalError(errorMessage(error));
      }
      current = { ...current, object: patched };
    }
    return current.object;
  }

  async validate(attributes: AdmissionAttributes, warnings: string[]): Promise<void> {
    const hooks = this.matching('validating', attributes);
    const outcomes = await Promise.allSettled(hooks.map((webhook) => this.invoke(webhook, attributes, warnings)));
    // kube reports one error; the first webhook in order that failed is the deterministic choice.
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  }

  private matching(kind: Webhook['kind'], attributes: AdmissionAttributes): Webhook[] {
    const configurations =
      kind === 'mutating' ? this.source.mutatingConfigurations() : this.source.validatingConfigurations();
    if (configurations.length === 0) return [];
    return webhooksOf(kind, configurations).filter((webhook) =>
      shouldCall(webhook, attributes, this.source.namespaceLabels),
    );
  }

  /** Calls one webhook: undefined when a failure was ignored; throws denials and Fail-policy failures. */
  private async invoke(
    webhook: Webhook,
    attributes: AdmissionAttributes,
    warnings: string[],
  ): Promise<AdmissionResponse | undefined> {
    const uid = randomUUID();
    const review = admissionReview(attributes, uid);
    if (!(await this.conditionsHold(webhook, attributes, review))) return undefined;
    if (attributes.dryRun && webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') {
      throw dryRunUnsupported(webhook.name);
    }
    this.calls?.record({
      webhook: webhook.name,
      kind: webhook.kind,
      operation: attributes.operation,
      resource: attributes.subresource ? `${attributes.type.plural}/${attributes.subresource}` : attributes.type.plural,
      namespace: attributes.namespace,
      name: attributes.name || objectName(attributes.object),
    });
    let response: AdmissionResponse;
    try {
      const answer = await callWebhook(webhook, this.endpoints, review, this.agents).catch((error: Error) => {
        throw new CallFailure(`failed to call webhook: ${error.message}`);
      });
      try {
        response = verifyAdmissionResponse(uid, webhook.kind === 'mutating', answer);
      } catch (error) {
        throw new CallFailure(`received invalid webhook response: ${(error as Error).message}`);
      }
    } catch (error) {
      if (!(error instanceof CallFailure)) throw error;
      if (webhook.failurePolicy === 'Ignore') return undefined;
      throw callingError(webhook.name, error.message);
    }
    for (const warning of response.warnings) warnings.push(warning);
    if (!response.allowed) throw deniedError(webhook.name, response.status);
    return response;
  }

  /** False when a condition is false, or one failed under failurePolicy Ignore; throws under Fail. */
  private async conditionsHold(
    webhook: Webhook,
    attributes: AdmissionAttributes,
    review: JsonObject,
  ): Promise<boolean> {
    const { object: _object, oldObject: _oldObject, ...request } = review.request as JsonObject;
    const result = await evaluateMatchConditions(webhook, attributes, request, this.source.authorize);
    if (!('error' in result)) return result.matches;
    if (webhook.failurePolicy === 'Ignore') return false;
    throw matchConditionsForbidden(
      { group: attributes.type.group, plural: attributes.type.plural, name: attributes.name },
      result.error,
    );
  }
}

function objectName(object: JsonObject | undefined): string {
  const metadata = isObject(object?.metadata) ? object.metadata : {};
  return typeof metadata.name === 'string' ? metadata.name : '';
}
