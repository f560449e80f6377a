import type { JsonObject, KubeObject } from '@edict/foundation';
import type { MatchResources, PolicyFieldError } from '../api/types';
import { isMutatingPolicy } from '../api/kinds';
import { CompileMemo, type CompileBuild } from '../compile/compile-memo';
import { compileSpec } from '../compile/compile-spec';
import type { CompiledSpec, NamedProgram } from '../compile/compiled-expressions';
import { mutatingAutogenConfigs } from './autogen';
import { compileMutations, type PreparedMutation } from './mutations';
import { MutatingPolicyError } from './policy-error';
import { mutatingSchemaErrors } from './schema-errors';
import { compileTargetExpression, type TargetExpression } from './target-expression';
import type { CompiledMutatingPolicy, MutatingAutogenConfig, MutatingPolicyKind, MutatingPolicySpec } from './types';

const memo = new CompileMemo<CompiledMutatingPolicy, MutatingPrograms>(
  'compileMutatingPolicy',
  (policy) => build(policy),
  (name, errors) => new MutatingPolicyError(name, errors),
);

/** Everything wrong with a MutatingPolicy (schema-level and CEL compile/type-check), [] when it is valid. */
export function mutatingPolicyErrors(policy: KubeObject): PolicyFieldError[] {
  return memo.errors(policy);
}

/**
 * Compiles a MutatingPolicy once per policy object: the same object, or the same uid and
 * resourceVersion, is never compiled again. Throws MutatingPolicyError with every problem.
 */
export function compileMutatingPolicy(policy: KubeObject): CompiledMutatingPolicy {
  return memo.compile(policy);
}

/** One spec's programs: the policy's own, or an autogen config's. */
export interface MutatingSpecPrograms {
  readonly spec: CompiledSpec;
  readonly mutations: readonly PreparedMutation[];
  /** spec.targetMatchConditions: on each existing target, in place of the match conditions. */
  readonly targetMatchConditions: readonly NamedProgram[];
}

/** What the evaluator runs; kept off the public CompiledMutatingPolicy. */
export interface MutatingPrograms {
  readonly own: MutatingSpecPrograms;
  readonly autogen: readonly { readonly config: MutatingAutogenConfig; readonly programs: MutatingSpecPrograms }[];
  readonly targetExpression?: TargetExpression;
}

/** The programs behind a compiled policy (for the evaluator). */
export function mutatingProgramsOf(compiled: CompiledMutatingPolicy): MutatingPrograms {
  return memo.programsOf(compiled);
}

function compileOne(
  spec: MutatingPolicySpec,
  path: string,
  namespaced: boolean,
  errors: PolicyFieldError[],
): MutatingSpecPrograms {
  const compiled = compileSpec(
    {
      ...(spec.matchConstraints ? { matchConstraints: spec.matchConstraints } : {}),
      matchConditions: spec.matchConditions ?? [],
      variables: spec.variables ?? [],
      auditAnnotations: spec.auditAnnotations ?? [],
    },
    path,
    'Kubernetes',
    errors,
    namespaced,
    { mutating: true },
  );
  const mutations = compileMutations(spec.mutations ?? [], path, namespaced, compiled.variableIndex, errors);
  return { spec: compiled, mutations, targetMatchConditions: compileTargetConditions(spec, path, namespaced, errors) };
}

/** targetMatchConditions compiled as match conditions are (they see the variables), errors at their own field. */
function compileTargetConditions(
  spec: MutatingPolicySpec,
  path: string,
  namespaced: boolean,
  errors: PolicyFieldError[],
): readonly NamedProgram[] {
  if ((spec.targetMatchConditions ?? []).length === 0) return [];
  const own: PolicyFieldError[] = [];
  const compiled = compileSpec(
    { matchConditions: spec.targetMatchConditions ?? [], variables: spec.variables ?? [] },
    path,
    'Kubernetes',
    own,
    namespaced,
    { mutating: true },
  );
  const conditions = `${path}.matchConditions[`;
  for (const error of own) {
    // The variables' own problems are reported once, with the policy's match conditions.
    if (error.field.startsWith(conditions))
      errors.push({ ...error, field: `${path}.targetMatchConditions[${error.field.slice(conditions.length)}` });
  }
  return compiled.matchConditions;
}

function build(policy: KubeObject): CompileBuild<CompiledMutatingPolicy, MutatingPrograms> {
  const errors: PolicyFieldError[] = [];
  if (!isMutatingPolicy(policy)) {
    errors.push({
      field: 'kind',
      message: `Unsupported value: ${JSON.stringify(policy.kind)}: not a policies.kyverno.io MutatingPolicy`,
    });
    return { errors };
  }
  const name = policy.metadata?.name;
  if (typeof name !== 'string' || name === '') errors.push({ field: 'metadata.name', message: 'Required value' });
  errors.push(...mutatingSchemaErrors(policy.spec));
  if (errors.some((error) => error.field === 'spec' || error.field === 'spec.evaluation.mode')) return { errors };
  const spec = policy.spec as unknown as MutatingPolicySpec;
  const kind = policy.kind as MutatingPolicyKind;
  const namespaced = kind === 'NamespacedMutatingPolicy';
  const own = compileOne(spec, 'spec', namespaced, errors);
  const targetExpression = compileTargetExpression(spec.targetMatchConstraints, namespaced, own.spec, errors);
  const configs = mutatingAutogenConfigs(spec);
  const autogenErrors: PolicyFieldError[] = [];
  const autogen = configs.map((config) => ({
    config,
    programs: compileOne(config.spec, `status.autogen.configs.${config.name}.spec`, namespaced, autogenErrors),
  }));
  // The policy's own problems say it all; an autogen config only fails alone when a rewrite broke it.
  if (errors.length === 0) errors.push(...autogenErrors);
  if (errors.length > 0) return { errors };

  const compiled: CompiledMutatingPolicy = {
    policy,
    kind,
    name: name as string,
    ...(namespaced ? { namespace: policy.metadata?.namespace || 'default' } : {}),
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    reinvocationPolicy: spec.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    admission: spec.evaluation?.admission?.enabled !== false,
    background: spec.evaluation?.background?.enabled !== false,
    mutateExisting: spec.evaluation?.mutateExisting?.enabled === true,
    ...(spec.webhookConfiguration?.timeoutSeconds !== undefined
      ? { timeoutSeconds: spec.webhookConfiguration.timeoutSeconds }
      : {}),
    matchConstraints: withAutogenRules(
      spec.matchConstraints,
      configs.map((config) => config.spec.matchConstraints),
    ),
    ...(spec.targetMatchConstraints ? { targetMatchConstraints: spec.targetMatchConstraints } : {}),
    matchConditions: Object.freeze([...(spec.matchConditions ?? [])]),
    autogen: Object.freeze(configs),
    autogenStatus: mutatingAutogenStatus(configs),
  };
  return { compiled, programs: { own, autogen, ...(targetExpression ? { targetExpression } : {}) }, errors };
}

/** status.autogen as Kyverno writes it: `{ configs: { <name>: { targets, spec } } }`. */
function mutatingAutogenStatus(configs: readonly MutatingAutogenConfig[]): JsonObject {
  if (configs.length === 0) return {};
  const entries = configs.map((config) => [
    config.name,
    { targets: config.targets.map((target) => ({ ...target })), spec: config.spec as unknown as JsonObject },
  ]);
  return { configs: Object.fromEntries(entries) as JsonObject };
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
