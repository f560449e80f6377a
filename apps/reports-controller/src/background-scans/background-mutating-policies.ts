/**
 * What a background scan makes of a MutatingPolicy, as Kyverno's scanner does: the policy runs on
 * the object as it is now (a CREATE of it, no admission request) and is reported on, never applied.
 *  - eligible: `evaluation.background.enabled` (default true) and, as for ValidatingPolicies, a
 *    NamespacedMutatingPolicy only on its own namespace's resources and only policies whose resource
 *    rules can name the resource (backgroundValidatingPoliciesFor); a policy Kyverno has turned into
 *    a MutatingAdmissionPolicy (`status.generated`) is labelled but not evaluated (the generated
 *    policy reports for it);
 *  - `pass` (`success`): the mutations change nothing, the object is already as the policy wants it;
 *  - `fail` (`mutation is not applied`): they would change it (the rule passed, no exception named);
 *  - `skip`: a match condition is false, or a PolicyException skips it (`exception` rule);
 *  - `error`: an expression failed.
 */
import type { CompiledMutatingPolicy, MutatingPolicyResult } from '@edict/cel-policies';
import type { PolicyResponse, RuleResponse } from '@edict/engine';

/** Kyverno's message for an object the policy would still mutate. */
export const MUTATION_NOT_APPLIED = 'mutation is not applied';

/** Whether the scan evaluates the policy (a generated MutatingAdmissionPolicy stands for it otherwise). */
export function scansMutatingPolicy(compiled: Pick<CompiledMutatingPolicy, 'policy'>): boolean {
  const status = (compiled.policy as { status?: { generated?: unknown } }).status;
  return status?.generated !== true;
}

/**
 * The policy's response on an existing object as the scan reports it: a passing rule (no exception
 * named) whose mutations would change the object becomes Kyverno's failure, without the rule's
 * properties (Kyverno replaces the rule whole).
 */
export function backgroundMutationResponse(result: MutatingPolicyResult): PolicyResponse {
  const changes = result.patches.length > 0;
  const rules = result.response.rules.map((rule): RuleResponse => {
    if (rule.status !== 'pass' || (rule.exceptions?.length ?? 0) > 0 || !changes) return rule;
    return { name: '', type: 'Mutation', status: 'fail', message: MUTATION_NOT_APPLIED };
  });
  return { ...result.response, rules };
}
