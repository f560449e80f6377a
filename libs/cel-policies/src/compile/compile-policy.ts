import { BoundedCache, type KubeObject } from '@edict/foundation';
import type { ValidationAction } from '@edict/engine';
import type { PolicyFieldError, ValidatingPolicyKind, ValidatingPolicySpec, MatchResources } from '../api/types';
import { isValidatingPolicy } from '../api/kinds';
import { autogenConfigs, autogenStatus } from '../autogen/autogen';
import type { CompiledValidatingPolicy } from './compiled-policy';
import type { PolicyPrograms } from './compiled-expressions';
import { compileSpec, type EvaluationMode } from './compile-spec';
import { ValidatingPolicyError } from './policy-error';
import { schemaErrors } from './schema-errors';

/** Everything wrong with a policy (schema-level and CEL compile/type-check), [] when it is valid. */
export function validatingPolicyErrors(policy: KubeObject): PolicyFieldError[] {
  return build(policy).errors;
}

/**
 * Compiles a ValidatingPolicy once per policy object: the same object, or the same uid and
 * resourceVersion, is never compiled again. Throws ValidatingPolicyError with every problem.
 */
export function compileValidatingPolicy(policy: KubeObject): CompiledValidatingPolicy {
  const known = byObject.get(policy);
  if (known) return known;
  const key = versionKey(policy);
  const cached = key ? byVersion.get(key) : undefined;
  if (cached) {
    byObject.set(policy, cached);
    return cached;
  }
  const { compiled, errors } = build(policy);
  if (!compiled || errors.length > 0) throw new ValidatingPolicyError(policy.metadata?.name ?? '', errors);
  byObject.set(policy, compiled);
  if (key) byVersion.set(key, compiled);
  return compiled;
}

/** The programs behind a compiled policy (for the evaluator). */
export function programsOf(compiled: CompiledValidatingPolicy): PolicyPrograms {
  const programs = programs_.get(compiled);
  if (!programs) throw new Error(`policy ${compiled.name} was not compiled by compileValidatingPolicy`);
  return programs;
}

const byObject = new WeakMap<object, CompiledValidatingPolicy>();
const byVersion = new BoundedCache<CompiledValidatingPolicy>(1_000);
const programs_ = new WeakMap<CompiledValidatingPolicy, PolicyPrograms>();

function versionKey(policy: KubeObject): string | undefined {
  const { uid, resourceVersion, namespace, name } = policy.metadata ?? {};
  if (!uid || !resourceVersion) return undefined;
  return `${policy.apiVersion}/${policy.kind}/${namespace ?? ''}/${name ?? ''}/${uid}/${resourceVersion}`;
}

function build(policy: KubeObject): { compiled?: CompiledValidatingPolicy; errors: PolicyFieldError[] } {
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
  programs_.set(compiled, { own, autogen });
  return { compiled, errors };
}

/** The policy's matchConstraints with the autogen configs' resource rules added (for webhook rules). */
function withAutogenRules(
  original: MatchResources | undefined,
  generated: readonly (MatchResources | undefined)[],
): MatchResources {
  const base: MatchResources = { ...(original ?? {}) };
  const extra = generated.flatMap((constraints) => constraints?.resourceRules ?? []);
  if (extra.length > 0) base.resourceRules = [...(base.resourceRules ?? []), ...extra];
  return base;
}
