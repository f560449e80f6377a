import {
  failurePolicyOf,
  verifyImagesFailureAction,
  type CompiledPolicy,
  type Engine,
  type FailurePolicy,
  type Rule,
} from '@edict/engine';

/**
 * The engine calls the admission handlers make; `Engine` from '@edict/engine' provides them. An
 * engine without `verifyImages` answers `error` for every verifyImages policy (never admits unverified).
 */
export type AdmissionEngine = Pick<Engine, 'validate' | 'mutate' | 'generate'> & Partial<Pick<Engine, 'verifyImages'>>;

/**
 * The policies a webhook path serves: admission not disabled, and — on the `fail`/`ignore` paths —
 * only those whose failure policy matches the path (Kyverno's filterPolicies).
 */
export function policiesForPath(
  policies: readonly CompiledPolicy[],
  path: FailurePolicy | undefined,
  has: (policy: CompiledPolicy) => boolean,
): CompiledPolicy[] {
  return policies.filter(
    (compiled) =>
      compiled.policy.spec.admission !== false &&
      has(compiled) &&
      (path === undefined || failurePolicyOf(compiled.policy) === path),
  );
}

const isEnforce = (action: unknown) => typeof action === 'string' && action.toLowerCase() === 'enforce';

/**
 * Kyverno's "enforce policy" (policy cache ValidateEnforce): any validate rule or override that says
 * Enforce. Such policies are evaluated before answering and can deny; the others are audit-only.
 */
export function isEnforcing(compiled: CompiledPolicy): boolean {
  let enforcing = enforcingPolicies.get(compiled);
  if (enforcing === undefined) {
    enforcing = enforces(compiled);
    enforcingPolicies.set(compiled, enforcing);
  }
  return enforcing;
}

/** Asked of every policy on every review: worked out once per compiled policy. */
const enforcingPolicies = new WeakMap<CompiledPolicy, boolean>();

function enforces(compiled: CompiledPolicy): boolean {
  const spec = compiled.policy.spec;
  if (isEnforce(spec.validationFailureAction)) return true;
  if ((spec.validationFailureActionOverrides ?? []).some((override) => isEnforce(override.action))) return true;
  return compiled.validateRules.some((rule) => ruleEnforces(rule));
}

function ruleEnforces(rule: Rule): boolean {
  const validate = rule.validate;
  if (!validate) return isEnforce(verifyImagesFailureAction(rule));
  if (isEnforce(validate.failureAction)) return true;
  return (validate.failureActionOverrides ?? []).some((override) => isEnforce(override.action));
}

export const hasValidate = (compiled: CompiledPolicy) => compiled.validateRules.length > 0;
export const emitsWarning = (compiled: CompiledPolicy) => compiled.policy.spec.emitWarning === true;

/** Mutate rules that patch the incoming object (not `mutate.targets`, which run in the background). */
export function standardMutateRules(compiled: CompiledPolicy): readonly Rule[] {
  return compiled.mutateRules.filter((rule) => !rule.mutate?.targets);
}

export function mutateExistingRules(compiled: CompiledPolicy): readonly Rule[] {
  return compiled.mutateRules.filter((rule) => rule.mutate?.targets);
}

const views = new WeakMap<CompiledPolicy, Map<string, CompiledPolicy>>();

/**
 * The compiled policy with its mutate rules narrowed (standard or mutate-existing), built once per
 * compiled policy so the hot path allocates nothing.
 */
export function withMutateRules(compiled: CompiledPolicy, which: 'standard' | 'existing'): CompiledPolicy {
  let byKind = views.get(compiled);
  if (!byKind) {
    byKind = new Map();
    views.set(compiled, byKind);
  }
  let view = byKind.get(which);
  if (!view) {
    const mutateRules = which === 'standard' ? standardMutateRules(compiled) : mutateExistingRules(compiled);
    view = { ...compiled, mutateRules };
    byKind.set(which, view);
  }
  return view;
}

const probes = new WeakMap<CompiledPolicy, CompiledPolicy>();

/**
 * The policy's generate and mutate-existing rules turned into always-passing validate rules, so
 * the engine decides what Kyverno's ApplyBackgroundChecks decides — match, context, preconditions,
 * exceptions — without generating or patching anything (that is the background controller's job).
 * A probe passes exactly when its rule would trigger an UpdateRequest.
 */
export function backgroundProbe(compiled: CompiledPolicy): CompiledPolicy {
  let probe = probes.get(compiled);
  if (!probe) {
    const rules = [...mutateExistingRules(compiled), ...compiled.generateRules];
    const validateRules = rules.map((rule) => {
      // A deny whose condition never holds passes on every operation (a pattern answers nothing on
      // DELETE, which would hide rules that act on deletion).
      const copy: Rule = {
        ...rule,
        validate: { deny: { conditions: { any: [{ key: 'probe', operator: 'Equals', value: 'never' }] } } },
      };
      delete copy.mutate;
      delete copy.generate;
      return copy;
    });
    probe = { ...compiled, validateRules, mutateRules: [], generateRules: [], imageVerifyRules: [] };
    probes.set(compiled, probe);
  }
  return probe;
}
