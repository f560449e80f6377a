/**
 * A classic policy's own `spec.webhookConfiguration.matchConditions`, checked by the engine as
 * Kyverno's MatchPolicyContext checks them before any rule: the policy applies only when every
 * condition holds for the request (an expression that does not compile or fails to evaluate is a
 * mismatch, as Kubernetes' matcher with its default failure policy answers). The API server checks
 * them too on the policy's fine-grained webhook; this check also covers background scans, the CLI
 * and requests that reach the policy through another webhook.
 */
import { CelMeter, compileCel, toCel, type CelProgram } from '@edict/cel';
import {
  EvaluationBudget,
  EvaluationDeadlineExceeded,
  type EvaluationDeadline,
  type EvaluationLimits,
  type KubeObject,
} from '@edict/foundation';
import type { Policy } from '../policy/types';
import type { ResourceRequest } from '../core/types';
import { celObject, requestAttributes } from '../validate/cel/activation';

/** Kubernetes' webhook match conditions: no params, no authorizer answers in the engine. */
const VARIABLES = { params: false, authorizer: false } as const;

/** The compiled conditions, or undefined when the policy sets none; `null` marks one that does not compile. */
export function compilePolicyMatchConditions(policy: Policy): (CelProgram | null)[] | undefined {
  const configured = policy.spec?.webhookConfiguration?.['matchConditions'];
  if (!Array.isArray(configured) || configured.length === 0) return undefined;
  return configured.map((entry) => {
    const expression = (entry as { expression?: unknown } | null)?.expression;
    if (typeof expression !== 'string') return null;
    try {
      return compileCel(expression, VARIABLES, 'bool');
    } catch {
      return null;
    }
  });
}

export function policyMatchConditionsHold(
  conditions: readonly (CelProgram | null)[],
  request: ResourceRequest,
  trigger: KubeObject,
  limits: EvaluationLimits,
  deadline: EvaluationDeadline | undefined,
): boolean {
  const activation = {
    object: request.operation === 'DELETE' ? null : celObject(request.resource ?? trigger),
    oldObject: celObject(request.oldResource),
    request: toCel(requestAttributes(request, trigger)),
    namespaceObject: null,
  };
  const meter = new CelMeter(new EvaluationBudget(limits, deadline));
  for (const program of conditions) {
    if (!program) return false;
    try {
      if (meter.run(() => program.evaluate(activation)) !== true) return false;
    } catch (error) {
      if (error instanceof EvaluationDeadlineExceeded) throw error;
      return false;
    }
  }
  return true;
}
