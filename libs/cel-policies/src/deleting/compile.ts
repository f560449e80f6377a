import { compileCel, type CelVariables } from '@edict/cel';
import { parseCronSchedule } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import { isDeletingPolicy } from '../api/kinds';
import type { PolicyFieldError } from '../api/types';
import type { NamedProgram } from '../compile/compiled-expressions';
import { CompileMemo, type CompileBuild } from '../compile/compile-memo';
import { compileSpec } from '../compile/compile-spec';
import { indexedVariableReferences, readsIdentifier, variableReferences } from '../compile/references';
import type { CompiledDeletingPolicy, DeletingPolicyPrograms } from './compiled-policy';
import { DeletingPolicyError } from './policy-error';
import { deletingSchemaErrors } from './schema-errors';
import type { DeletingPolicyKind, DeletingPolicySpec } from './types';

const memo = new CompileMemo<CompiledDeletingPolicy, DeletingPolicyPrograms>(
  'compileDeletingPolicy',
  (policy) => build(policy),
  (name, errors) => new DeletingPolicyError(name, errors),
);

/** The variables Kyverno's libraries bind (kyvernoActivation). */
const LIBRARY_VARIABLES = ['http', 'resource', 'globalContext', 'image'];

/** Everything wrong with a DeletingPolicy (schema-level and CEL compile/type-check), [] when it is valid. */
export function deletingPolicyErrors(policy: KubeObject): PolicyFieldError[] {
  return memo.errors(policy);
}

/**
 * Compiles a DeletingPolicy or NamespacedDeletingPolicy once per policy object (the same object, or
 * the same uid and resourceVersion, is never compiled again). Throws DeletingPolicyError with every
 * problem.
 */
export function compileDeletingPolicy(policy: KubeObject): CompiledDeletingPolicy {
  return memo.compile(policy);
}

/** The programs behind a compiled policy (for the evaluator and the scheduler). */
export function deletingProgramsOf(compiled: CompiledDeletingPolicy): DeletingPolicyPrograms {
  return memo.programsOf(compiled);
}

function build(policy: KubeObject): CompileBuild<CompiledDeletingPolicy, DeletingPolicyPrograms> {
  const errors: PolicyFieldError[] = [];
  if (!isDeletingPolicy(policy)) {
    errors.push({
      field: 'kind',
      message: `Unsupported value: ${JSON.stringify(policy.kind)}: not a policies.kyverno.io DeletingPolicy`,
    });
    return { errors };
  }
  const name = policy.metadata?.name;
  if (typeof name !== 'string' || name === '') errors.push({ field: 'metadata.name', message: 'Required value' });
  errors.push(...deletingSchemaErrors(policy.spec));
  if (errors.some((error) => error.field === 'spec')) return { errors };
  const spec = policy.spec as unknown as DeletingPolicySpec;
  const kind = policy.kind as DeletingPolicyKind;
  const namespaced = kind === 'NamespacedDeletingPolicy';

  // Variables as every CEL policy compiles them (each sees those declared before it).
  const variablesSpec = compileSpec({ variables: spec.variables ?? [] }, 'spec', 'Kubernetes', errors, namespaced);
  // Kyverno's DeletingPolicy environment declares no `authorizer` (there is no requesting user).
  (spec.variables ?? []).forEach((variable, i) => {
    if (typeof variable?.expression === 'string' && readsIdentifier(variable.expression, 'authorizer')) {
      errors.push({
        field: `spec.variables[${i}].expression`,
        message: `Invalid value: ${JSON.stringify(variable.expression)}: compilation failed: undeclared reference to 'authorizer'`,
      });
    }
  });
  const conditions = compileConditions(spec, namespaced, errors);
  if (errors.length > 0) return { errors };

  const sources = [
    ...(spec.variables ?? []).map((variable) => variable.expression),
    ...(spec.conditions ?? []).map((condition) => condition.expression),
  ];
  const compiled: CompiledDeletingPolicy = {
    policy,
    kind,
    name: name as string,
    ...(namespaced ? { namespace: policy.metadata?.namespace || 'default' } : {}),
    schedule: spec.schedule as string,
    ...(spec.deletionPropagationPolicy ? { deletionPropagationPolicy: spec.deletionPropagationPolicy } : {}),
    matchConstraints: spec.matchConstraints ?? {},
  };
  return {
    compiled,
    programs: {
      cron: parseCronSchedule(spec.schedule as string),
      spec: variablesSpec,
      conditions,
      readsLibraries: sources.some((source) => LIBRARY_VARIABLES.some((library) => readsIdentifier(source, library))),
    },
    errors,
  };
}

/**
 * spec.conditions: bool expressions over `object` (and `namespaceObject`, `variables`, Kyverno's
 * libraries), each problem at its field path in Kyverno's words.
 */
function compileConditions(spec: DeletingPolicySpec, namespaced: boolean, errors: PolicyFieldError[]): NamedProgram[] {
  const variables: CelVariables = {
    params: false,
    authorizer: false,
    exceptions: true,
    kyverno: true,
    namespacedPolicy: namespaced,
  };
  const declared = new Set((spec.variables ?? []).map((variable) => String(variable?.name ?? '')));
  const programs: NamedProgram[] = [];
  (spec.conditions ?? []).forEach((condition, i) => {
    const field = `spec.conditions[${i}].expression`;
    const source: unknown = condition?.expression;
    if (typeof source !== 'string' || source.trim() === '') {
      errors.push({ field, message: 'Required value' });
      return;
    }
    const invalid = (message: string) =>
      errors.push({ field, message: `Invalid value: ${JSON.stringify(source)}: compilation failed: ${message}` });
    const reads = [...new Set([...variableReferences(source), ...indexedVariableReferences(source)])];
    const unknown = reads.find((read) => !declared.has(read));
    if (unknown !== undefined) return invalid(`undefined field '${unknown}'`);
    if (readsIdentifier(source, 'authorizer')) return invalid("undeclared reference to 'authorizer'");
    try {
      programs.push({ name: String(condition.name ?? ''), program: compileCel(source, variables, 'bool'), reads });
    } catch (error) {
      invalid((error as Error).message);
    }
  });
  return programs;
}
