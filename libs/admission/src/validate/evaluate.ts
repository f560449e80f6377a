import { emptyPolicyResponse, type CompiledPolicy, type PolicyResponse, type ResourceRequest } from '@edict/engine';
import { EvaluationDeadlineExceeded, type EvaluationDeadline, errorMessage } from '@edict/foundation';
import type { AdmissionEngine } from '../policies';

export interface Evaluated {
  compiled: CompiledPolicy;
  response: PolicyResponse;
}

/**
 * Runs one engine stage for each policy, in order. The engine reports rule problems as `error`
 * results; should it throw anyway, the policy gets one `error` result carrying the cause, so a
 * broken policy follows its failure policy instead of taking the webhook down. A passed deadline
 * is not a policy's problem: EvaluationDeadlineExceeded ends the whole evaluation.
 */
export async function evaluate(
  engine: AdmissionEngine,
  policies: readonly CompiledPolicy[],
  request: ResourceRequest,
  stage: 'validate' | 'generate',
  deadline?: EvaluationDeadline,
): Promise<Evaluated[]> {
  const out: Evaluated[] = [];
  for (const compiled of policies) {
    let response: PolicyResponse;
    try {
      response = await engine[stage](compiled, request, { deadline });
    } catch (error) {
      if (error instanceof EvaluationDeadlineExceeded) throw error;
      response = crashed(compiled, request, error, stage === 'validate' ? 'Validation' : 'Generation');
    }
    if (response.rules.length > 0) out.push({ compiled, response });
  }
  return out;
}

/** A policy response standing for an evaluation that threw. */
export function crashed(
  compiled: CompiledPolicy,
  request: ResourceRequest,
  error: unknown,
  type: 'Validation' | 'Mutation' | 'Generation' | 'ImageVerify',
): PolicyResponse {
  return {
    ...emptyPolicyResponse(compiled, request),
    rules: [
      {
        name: compiled.policy.metadata.name,
        type,
        status: 'error',
        message: `policy evaluation failed: ${errorMessage(error)}`,
      },
    ],
    validationFailureAction: 'Audit',
  };
}
