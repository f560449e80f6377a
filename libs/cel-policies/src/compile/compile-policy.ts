import type { KubeObject } from '@edict/foundation';
import type { ValidationAction } from '@edict/engine';
import type { PolicyFieldError, ValidatingPolicyKind, ValidatingPolicySpec, MatchResources } from '../api/types';
import { isValidatingPolicy } from '../api/kinds';
import { autogenConfigs, autogenStatus } from '../autogen/autogen';
import type { CompiledValidatingPolicy } from './compiled-policy';
import type { PolicyPrograms } from './compiled-expressions';
import { compileSpec, type EvaluationMode } from './compile-spec';
import { CompileMemo, type CompileBuild } from './compile-memo';
import { schemaErrors } from './schema-errors';

const memo = new CompileMemo<CompiledValidatingPolicy, PolicyPrograms>('compileValidatingPolicy', build);

/** Everything wrong with a policy (schema-level and CEL compile/type-check), [] when it is valid. */
export function validatingPolicyErrors(policy: KubeObject): PolicyFieldError[] {
  return memo.errors(policy);
}

/**
 * Compiles a ValidatingPolicy once per policy object: the same object, or the same uid and
 * resourceVersion, is never compiled again. Throws ValidatingPolicyError with every problem.
 */
export function compileValidatingPolicy(policy: KubeObject): CompiledValidatingPolicy {
  return memo.compile(policy);
}

/** The programs behind a compiled policy (for the evaluator). */
export function programsOf(compiled: CompiledValidatingPolicy): PolicyPrograms {
  return memo.programsOf(compiled);
}

function build(policy: KubeObject): CompileBuild<CompiledValidatingPolicy, PolicyPrograms> {
  const errors: PolicyFieldError[] = [];
  if (!isValidatingPolicy(policy)) {
    errors.push({
      field: 'kind',
      message: `Unsupported value: ${JSON.stringify(policy.kind)}: not a policies.kyverno.io ValidatingPolicy`,
    });
    return { errors };
  }
  const name = policy.metadata?.name;
  if (typeof name !== 'string' || name === '') errors.push({ field: 'metadata.name', message: 'Required value' });
  errors.push(...schemaErrors(policy.spec));
  if (errors.some((error) => error.field === 'spec' || error.field.startsWith('spec.evaluation.mode')))
    return { errors };
  const spec = policy.spec as unknown as ValidatingPolicySpec;
  const mode: EvaluationMode = spec.evaluation?.mode === 'JSON' ? 'JSON' : 'Kubernetes';
  const namespaced = policy.kind === 'NamespacedValidatingPolicy';
  const own = compileSpec(spec, 'spec', mode, errors, namespaced);
  const configs = mode === 'Kubernetes' ? autogenConfigs(spec) : [];
  const autogenErrors: PolicyFieldError[] = [];
  const autogen = configs.map((config) => ({
    config,
    spec: compileSpec(config.spec, `status.autogen.configs.${config.name}.spec`, mode, autogenErrors, namespaced),
  }));
  // The policy's own problems say it all; an autogen config only fails alone when a rewrite broke it.
  if (errors.length === 0) errors.push(...autogenErrors);
  if (errors.length > 0) return { errors };

  const kind = policy.kind as ValidatingPolicyKind;
  const actions = (spec.validationActions ?? []).length > 0 ? (spec.validationActions as ValidationAction[]) : ['Deny'];
  const compiled: CompiledValidatingPolicy = {
    policy,
    kind,
    name: name as string,
    ...(kind === 'NamespacedValidatingPolicy' ? { namespace: policy.metadata?.namespace || 'default' } : {}),
    validationActions: Object.freeze([...actions]) as readonly ValidationAction[],
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    admission: spec.evaluation?.admission?.enabled !== false,
    background: spec.evaluation?.background?.enabled !== false,
    mode,
    ...(spec.webhookConfiguration?.timeoutSeconds !== undefined
      ? { timeoutSeconds: spec.webhookConfiguration.timeoutSeconds }
      : {}),
    matchConstraints: withAutogenRules(
      spec.matchConstraints,
      configs.map((config) => config.spec.matchConstraints),
    ),
    matchConditions: Object.freeze([...(spec.matchConditions ?? [])]),
    autogen: Object.freeze(configs),
    autogenStatus: autogenStatus(configs),
  };
  return { compiled, programs: { own, autogen }, errors };
}

/** The policy's matchConstraints with the autogen configs' resource rules added (for webhook rules). */
export function withAutogenRules(
  original: MatchResources | undefined,
  generated: readonly (MatchResources | undefined)[],
): MatchResources {
  const base: MatchResources = { ...(original ?? {}) };
  const extra = generated.flatMap((constraints) => constraints?.resourceRules ?? []);
  if (extra.length > 0) base.resourceRules = [...(base.resourceRules ?? []), ...extra];
  return base;
}
