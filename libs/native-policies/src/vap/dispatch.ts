/**
 * Every ValidatingAdmissionPolicy of a server on one request, as kube-apiserver's dispatcher runs
 * them: each policy with its bindings, denials collected across all of them and the first one
 * answered, warnings and audit annotations of every policy kept.
 */
import type { JsonObject } from '@edict/foundation';
import type { AdmissionAttributes } from '../types';
import type { CompiledValidatingAdmissionPolicy } from './compile';
import {
  evaluateValidatingAdmissionPolicy,
  type ValidationFailure,
  type VapContext,
  type VapDenial,
  type VapEvaluation,
} from './evaluate';

export interface VapDispatch {
  /** The first denial among the policies, in their order; absent when the request is admitted. */
  denied?: VapDenial & { policy: string };
  warnings: string[];
  auditAnnotations: Record<string, string>;
  validationFailures: ValidationFailure[];
  /** Each policy's own evaluation. */
  evaluations: VapEvaluation[];
}

export async function dispatchValidatingAdmissionPolicies(
  policies: readonly CompiledValidatingAdmissionPolicy[],
  bindings: readonly JsonObject[],
  attributes: AdmissionAttributes,
  context: VapContext = {},
): Promise<VapDispatch> {
  const out: VapDispatch = { warnings: [], auditAnnotations: {}, validationFailures: [], evaluations: [] };
  for (const policy of policies) {
    const evaluation = await evaluateValidatingAdmissionPolicy(policy, bindings, attributes, context);
    out.evaluations.push(evaluation);
    out.warnings.push(...evaluation.warnings);
    Object.assign(out.auditAnnotations, evaluation.auditAnnotations);
    out.validationFailures.push(...evaluation.validationFailures);
    if (!out.denied && evaluation.denied) out.denied = { ...evaluation.denied, policy: evaluation.policy };
  }
  return out;
}
