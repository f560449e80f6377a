import type { PolicyResponse } from '@edict/engine';
import type { CompiledValidatingPolicy } from '../compile/compiled-policy';
import type { CelPolicyContext, CelPolicyInput } from './input';

/** undefined when the policy does not apply (match constraints/conditions); else Kyverno's response. */
export function evaluateValidatingPolicy(
  _compiled: CompiledValidatingPolicy,
  _input: CelPolicyInput,
  _context: CelPolicyContext,
): Promise<PolicyResponse | undefined> {
  return Promise.reject(new Error('not built yet: evaluateValidatingPolicy'));
}
