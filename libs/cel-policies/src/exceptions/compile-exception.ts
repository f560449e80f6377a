import { BoundedCache, isObject, type KubeObject } from '@edict/foundation';
import type { CelPolicyExceptionSpec, PolicyFieldError } from '../api/types';
import { isCelPolicyException } from '../api/kinds';
import { compileSpec } from '../compile/compile-spec';
import type { CompiledCelPolicyException } from './compiled-exception';

/** Thrown by compileCelPolicyException: every problem, each with its field path. */
export class CelPolicyExceptionError extends Error {
  override readonly name = 'CelPolicyExceptionError';
  constructor(
    readonly exceptionName: string,
    readonly errors: readonly PolicyFieldError[],
  ) {
    super(`policy exception ${exceptionName} is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  }
}

/** Everything wrong with a CEL PolicyException, [] when it is valid. */
export function celPolicyExceptionErrors(exception: KubeObject): PolicyFieldError[] {
  return build(exception).errors;
}

/** Compiled once per exception object (or uid and resourceVersion). Throws CelPolicyExceptionError. */
export function compileCelPolicyException(exception: KubeObject): CompiledCelPolicyException {
  const known = byObject.get(exception);
  if (known) return known;
  const { uid, resourceVersion, namespace, name } = exception.metadata ?? {};
  const key = uid && resourceVersion ? `${namespace ?? ''}/${name ?? ''}/${uid}/${resourceVersion}` : undefined;
  const cached = key ? byVersion.get(key) : undefined;
  if (cached) return cached;
  const { compiled, errors } = build(exception);
  if (!compiled || errors.length > 0) throw new CelPolicyExceptionError(name ?? '', errors);
  byObject.set(exception, compiled);
  if (key) byVersion.set(key, compiled);
  return compiled;
}

const byObject = new WeakMap<object, CompiledCelPolicyException>();
const byVersion = new BoundedCache<CompiledCelPolicyException>(1_000);

const REPORT_RESULTS = ['skip', 'pass'];

function build(exception: KubeObject): { compiled?: CompiledCelPolicyException; errors: PolicyFieldError[] } {
  const errors: PolicyFieldError[] = [];
  const push = (field: string, message: string) => errors.push({ field, message });
  if (!isCelPolicyException(exception)) {
    push('kind', `Unsupported value: ${JSON.stringify(exception.kind)}: not a policies.kyverno.io PolicyException`);
    return { errors };
  }
  const name = exception.metadata?.name ?? '';
  if (!name) push('metadata.name', 'Required value');
  if (!isObject(exception.spec)) {
    push('spec', 'Required value');
    return { errors };
  }
  const spec = exception.spec as unknown as CelPolicyExceptionSpec;
  const refs = Array.isArray(spec.policyRefs) ? spec.policyRefs : [];
  if (refs.length === 0) push('spec.policyRefs', 'Required value: at least one policy reference is required');
  refs.forEach((ref, i) => {
    if (!isObject(ref) || typeof ref.name !== 'string' || ref.name === '')
      push(`spec.policyRefs[${i}].name`, 'Required value');
    if (!isObject(ref) || typeof ref.kind !== 'string' || ref.kind === '')
      push(`spec.policyRefs[${i}].kind`, 'Required value');
  });
  const strings = (field: string, value: unknown): string[] => {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      push(field, `Invalid value: ${JSON.stringify(value)}: must be a list of strings`);
      return [];
    }
    return value as string[];
  };
  const images = strings('spec.images', spec.images);
  const allowedValues = strings('spec.allowedValues', spec.allowedValues);
  if (spec.reportResult !== undefined && !REPORT_RESULTS.includes(spec.reportResult)) {
    push(
      'spec.reportResult',
      `Unsupported value: ${JSON.stringify(spec.reportResult)}: supported values: "skip", "pass"`,
    );
  }
  let expiresAt: number | undefined;
  if (spec.expiresAt !== undefined && spec.expiresAt !== null) {
    expiresAt = typeof spec.expiresAt === 'string' ? Date.parse(spec.expiresAt) : Number.NaN;
    if (Number.isNaN(expiresAt))
      push('spec.expiresAt', `Invalid value: ${JSON.stringify(spec.expiresAt)}: must be an RFC 3339 time`);
  }
  const conditions = Array.isArray(spec.matchConditions) ? spec.matchConditions : [];
  if (conditions.length > 64)
    push('spec.matchConditions', `Too many: ${conditions.length}: must have at most 64 items`);
  const names = new Set<string>();
  conditions.forEach((condition, i) => {
    const conditionName = isObject(condition) ? condition.name : undefined;
    if (typeof conditionName !== 'string' || conditionName === '')
      push(`spec.matchConditions[${i}].name`, 'Required value');
    else if (names.has(conditionName))
      push(`spec.matchConditions[${i}].name`, `Duplicate value: ${JSON.stringify(conditionName)}`);
    if (typeof conditionName === 'string') names.add(conditionName);
  });
  // The exception's conditions see what a policy's match conditions see.
  const compiled = compileSpec({ matchConditions: conditions }, 'spec', 'Kubernetes', errors);
  if (errors.length > 0) return { errors };
  const namespace = exception.metadata?.namespace ?? '';
  return {
    errors,
    compiled: {
      exception,
      name,
      namespace,
      key: namespace ? `${namespace}/${name}` : name,
      policyRefs: refs.map((ref) => ({ name: ref.name, kind: ref.kind })),
      matchConditions: compiled.matchConditions,
      readsRequest: compiled.readsRequest,
      readsLibraries: compiled.readsLibraries,
      images,
      allowedValues,
      reportResult: spec.reportResult === 'pass' ? 'pass' : 'skip',
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    },
  };
}
