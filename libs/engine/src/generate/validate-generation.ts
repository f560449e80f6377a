import { isObject, type JsonValue } from '@edict/foundation';
import type { Generation } from '../policy/types';

type Pattern = Omit<Generation, 'foreach'>;

/** Validation results per generate block (policies are parsed once, so their objects are stable keys). */
const checked = new WeakMap<Generation, string | undefined>();

/**
 * The checks Kyverno makes when a policy is admitted, which a policy that reaches the engine may not
 * have passed: returns "<field path>: <problem>" (several joined with "; "), or undefined when valid.
 */
export function generationError(generation: Generation): string | undefined {
  if (!isObject(generation as unknown as JsonValue)) return 'generate: expected an object';
  if (checked.has(generation)) return checked.get(generation);
  const problems = generationProblems(generation);
  const error = problems.length > 0 ? problems.join('; ') : undefined;
  checked.set(generation, error);
  return error;
}

function generationProblems(generation: Generation): string[] {
  const chosen = [
    generation.data !== undefined && generation.data !== null,
    isObject(generation.clone as JsonValue) && Object.keys(generation.clone as object).length > 0,
    generation.cloneList?.kinds !== undefined,
    generation.foreach !== undefined,
  ].filter(Boolean).length;
  if (chosen > 1)
    return ['generate: only one of generate patterns(data, clone, cloneList and foreach) can be specified'];
  if (generation.foreach === undefined) return patternProblems(generation, 'generate');
  if (!Array.isArray(generation.foreach)) return ['generate.foreach: expected a list'];
  return generation.foreach.flatMap((loop, index) => {
    const path = `generate.foreach[${index}]`;
    if (!isObject(loop as unknown as JsonValue)) return [`${path}: expected an object`];
    const problems =
      typeof loop.list === 'string' && loop.list.trim() !== '' ? [] : [`${path}.list: list can not be empty`];
    return [...problems, ...patternProblems(loop, path)];
  });
}

function patternProblems(pattern: Pattern, path: string): string[] {
  const problems: string[] = [];
  for (const field of ['apiVersion', 'kind', 'name', 'namespace'] as const) {
    const value = pattern[field];
    if (value !== undefined && value !== null && typeof value !== 'string')
      problems.push(`${path}.${field}: expected a string`);
  }
  if (pattern.clone !== undefined && !isObject(pattern.clone as JsonValue))
    problems.push(`${path}.clone: expected an object`);
  const kinds = pattern.cloneList?.kinds;
  if (kinds !== undefined && (!Array.isArray(kinds) || kinds.some((kind) => typeof kind !== 'string'))) {
    problems.push(`${path}.cloneList.kinds: expected a list of strings`);
  }
  if (problems.length > 0) return problems;

  // Variables in the source are allowed: Kyverno only warns that they break synchronization.
  if (!kinds || kinds.length === 0) {
    if (!pattern.kind) problems.push(`${path}.kind: kind can not be empty`);
    if (!pattern.name) problems.push(`${path}.name: name can not be empty`);
    if (!pattern.apiVersion) problems.push(`${path}.apiVersion: apiVersion can not be empty`);
  }
  return problems;
}
