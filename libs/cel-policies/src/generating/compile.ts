import { compileCel, expressionsUseIdentifier, HTTP_IN_NAMESPACED_POLICY, type CelVariables } from '@edict/cel';
import { BoundedCache, type KubeObject } from '@edict/foundation';
import { isGeneratingPolicy } from '../api/kinds';
import type { PolicyFieldError } from '../api/types';
import { compileSpec } from '../compile/compile-spec';
import { indexedVariableReferences, variableReferences } from '../compile/references';
import type { CompiledGeneration, GeneratingPrograms } from './compiled-programs';
import { GeneratingPolicyError } from './policy-error';
import { generatingSchemaErrors } from './schema-errors';
import { compileTemplate, scan } from './template';
import type { CompiledGeneratingPolicy, GeneratingPolicyKind, GeneratingPolicySpec } from './types';

/** Options of the admission check (Kyverno's flags). */
export interface GeneratingPolicyCheckOptions {
  /** Kyverno's `--allowHTTPInNamespacedPolicies` (default false). */
  readonly allowHttpInNamespacedPolicies?: boolean;
}

/**
 * Everything wrong with a GeneratingPolicy or NamespacedGeneratingPolicy (schema, CEL compile and
 * type-check, and for a namespaced one the libraries it may not use), [] when it is valid.
 */
export function generatingPolicyErrors(
  policy: KubeObject,
  options: GeneratingPolicyCheckOptions = {},
): PolicyFieldError[] {
  const { errors } = build(policy);
  if (policy.kind === 'NamespacedGeneratingPolicy' && errors.every((error) => error.field !== 'spec')) {
    const expressions = expressionsOf(policy.spec as GeneratingPolicySpec);
    if (expressionsUseIdentifier('globalContext', expressions)) {
      errors.push({ field: 'spec', message: 'Forbidden: globalContext.* is not allowed in namespaced policies' });
    }
    if (!options.allowHttpInNamespacedPolicies && expressionsUseIdentifier('http', expressions)) {
      errors.push({ field: 'spec', message: `Forbidden: ${HTTP_IN_NAMESPACED_POLICY}` });
    }
  }
  return errors;
}

/**
 * Compiles a GeneratingPolicy once per policy object (the same object, or the same uid and
 * resourceVersion, is never compiled again). Throws GeneratingPolicyError with every problem.
 */
export function compileGeneratingPolicy(policy: KubeObject): CompiledGeneratingPolicy {
  const known = byObject.get(policy);
  if (known) return known;
  const key = versionKey(policy);
  const cached = key ? byVersion.get(key) : undefined;
  if (cached) {
    byObject.set(policy, cached);
    return cached;
  }
  const { compiled, errors } = build(policy);
  if (!compiled || errors.length > 0) throw new GeneratingPolicyError(policy.metadata?.name ?? '', errors);
  byObject.set(policy, compiled);
  if (key) byVersion.set(key, compiled);
  return compiled;
}

/** The programs behind a compiled policy (for the evaluator). */
export function generatingProgramsOf(compiled: CompiledGeneratingPolicy): GeneratingPrograms {
  const programs = programs_.get(compiled);
  if (!programs) throw new Error(`policy ${compiled.name} was not compiled by compileGeneratingPolicy`);
  return programs;
}

const byObject = new WeakMap<object, CompiledGeneratingPolicy>();
const byVersion = new BoundedCache<CompiledGeneratingPolicy>(1_000);
const programs_ = new WeakMap<CompiledGeneratingPolicy, GeneratingPrograms>();

function versionKey(policy: KubeObject): string | undefined {
  const { uid, resourceVersion, namespace, name } = policy.metadata ?? {};
  if (!uid || !resourceVersion) return undefined;
  return `${policy.apiVersion}/${policy.kind}/${namespace ?? ''}/${name ?? ''}/${uid}/${resourceVersion}`;
}

function build(policy: KubeObject): { compiled?: CompiledGeneratingPolicy; errors: PolicyFieldError[] } {
  const errors: PolicyFieldError[] = [];
  if (!isGeneratingPolicy(policy)) {
    errors.push({
      field: 'kind',
      message: `Unsupported value: ${JSON.stringify(policy.kind)}: not a policies.kyverno.io GeneratingPolicy`,
    });
    return { errors };
  }
  const name = policy.metadata?.name;
  if (typeof name !== 'string' || name === '') errors.push({ field: 'metadata.name', message: 'Required value' });
  errors.push(...generatingSchemaErrors(policy.spec));
  if (errors.some((error) => error.field === 'spec')) return { errors };
  const spec = policy.spec as GeneratingPolicySpec;
  const kind = policy.kind as GeneratingPolicyKind;
  const namespaced = kind === 'NamespacedGeneratingPolicy';
  const own = compileSpec(
    { matchConditions: spec.matchConditions ?? [], variables: spec.variables ?? [] },
    'spec',
    'Kubernetes',
    errors,
    namespaced,
    { generator: true },
  );
  const declared = new Set(own.variables.map((variable) => variable.name));
  for (const variable of spec.variables ?? []) declared.add(String(variable?.name ?? ''));
  const variables: CelVariables = {
    params: false,
    authorizer: false,
    kyverno: true,
    namespacedPolicy: namespaced,
    generator: true,
  };
  const generations: CompiledGeneration[] = [];
  (spec.generate ?? []).forEach((generation, index) => {
    const at = `spec.generate[${index}]`;
    if (typeof generation?.expression === 'string' && generation.expression !== '') {
      const source = generation.expression;
      const field = `${at}.expression`;
      const invalid = (message: string) =>
        errors.push({ field, message: `Invalid value: ${JSON.stringify(source)}: ${message}` });
      const unknown = variableReferences(source).find((variable) => !declared.has(variable));
      if (unknown !== undefined) return invalid(`compilation failed: undefined field '${unknown}'`);
      try {
        const program = compileCel(source, variables, 'any');
        generations.push({
          index,
          program,
          reads: [...new Set([...variableReferences(source), ...indexedVariableReferences(source)])],
        });
      } catch (error) {
        invalid(`compilation failed: ${(error as Error).message}`);
      }
      return;
    }
    const template = generation?.template;
    if (template && typeof template.value === 'string') {
      const compiled = compileTemplate(
        template.value,
        template.interpolate === 'cel',
        variables,
        `${at}.template.value`,
        declared,
        errors,
      );
      if (compiled) generations.push({ index, template: compiled, reads: compiled.reads });
    }
  });
  if (errors.length > 0) return { errors };

  const evaluation = spec.evaluation ?? {};
  const compiled: CompiledGeneratingPolicy = {
    policy,
    kind,
    name: name as string,
    ...(namespaced ? { namespace: policy.metadata?.namespace || 'default' } : {}),
    matchConstraints: spec.matchConstraints ?? {},
    matchConditions: Object.freeze([...(spec.matchConditions ?? [])]),
    admission: evaluation.admission?.enabled !== false,
    generateExisting: evaluation.generateExisting?.enabled === true,
    synchronize: evaluation.synchronize?.enabled === true,
    orphanDownstreamOnPolicyDelete: evaluation.orphanDownstreamOnPolicyDelete?.enabled === true,
    ...(spec.webhookConfiguration?.timeoutSeconds !== undefined
      ? { timeoutSeconds: spec.webhookConfiguration.timeoutSeconds }
      : {}),
  };
  programs_.set(compiled, { spec: own, generations });
  return { compiled, errors };
}

/** Every expression of the policy, template placeholders included (for the namespaced checks). */
function expressionsOf(spec: GeneratingPolicySpec): string[] {
  const out: string[] = [];
  for (const variable of spec.variables ?? [])
    if (typeof variable?.expression === 'string') out.push(variable.expression);
  for (const condition of spec.matchConditions ?? [])
    if (typeof condition?.expression === 'string') out.push(condition.expression);
  for (const generation of spec.generate ?? []) {
    if (typeof generation?.expression === 'string') out.push(generation.expression);
    const template = generation?.template;
    if (template?.interpolate === 'cel' && typeof template.value === 'string') {
      for (const line of template.value.split('\n')) {
        try {
          for (const segment of scan(line)) if (typeof segment !== 'string') out.push(segment.expression);
        } catch {
          // A malformed placeholder is reported by the compiler.
        }
      }
    }
  }
  return out;
}
