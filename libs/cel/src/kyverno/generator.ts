import type { Environment } from '@marcbachmann/cel-js';
import { isObject, type JsonObject } from '@edict/foundation';
import { celError } from '../libraries/errors';
import { missingPort, type KyvernoCalls } from './calls';
import { CelPortError, type CelGeneratorPort } from './ports';
import { celToJson } from './values';

export const GENERATOR_TYPE = 'generator.Context';

/** The value of `generator`: the port recording what a GeneratingPolicy asks to create. */
export class CelGeneratorContext {
  constructor(
    readonly calls: KyvernoCalls,
    readonly port: CelGeneratorPort | undefined,
  ) {}
}

/**
 * Kyverno's generator library (GeneratingPolicy only): `generator.Apply(namespace, [objects])` (and
 * `apply`) hands the objects, as JSON, to the port with the namespace to generate them into, and
 * answers true. A namespaced policy's overload takes no namespace: its own is used, so it cannot
 * name another. The library decides nothing: the engine behind the port labels, bounds and creates
 * (or, in the CLI, only records) the objects; a List object stands for its items there.
 */
export function registerGenerator(env: Environment, namespaced: boolean): void {
  env.registerType(GENERATOR_TYPE, CelGeneratorContext);
  const objects = 'list<map<string, dyn>>';
  for (const apply of ['Apply', 'apply']) {
    if (namespaced) {
      env.registerFunction(`${GENERATOR_TYPE}.${apply}(${objects}): bool`, (g: CelGeneratorContext, list: unknown) =>
        generate(g, own(g), list),
      );
    } else {
      env.registerFunction(
        `${GENERATOR_TYPE}.${apply}(string, ${objects}): bool`,
        (g: CelGeneratorContext, namespace: string, list: unknown) => generate(g, namespace, list),
      );
    }
  }
}

function own(g: CelGeneratorContext): string {
  const namespace = g.calls.scope.policyNamespace;
  if (!namespace) throw celError('failed to generate resources: a namespaced policy has no namespace to generate into');
  return namespace;
}

function generate(g: CelGeneratorContext, namespace: string, list: unknown): boolean {
  if (!g.port) throw missingPort('generator', 'cannot generate resources');
  // A namespaced policy generates into its own namespace only (the overload it has names none).
  const policyNamespace = g.calls.scope.policyNamespace;
  if (policyNamespace && namespace !== policyNamespace) {
    throw celError(
      `failed to generate resources: a policy in namespace ${policyNamespace} cannot generate into namespace "${namespace}"`,
    );
  }
  if (!Array.isArray(list)) throw celError('failed to generate resources: expected a list of objects');
  const objects: JsonObject[] = list.map((item, i) => {
    const json = celToJson(item, 'generator.Apply');
    if (!isObject(json)) throw celError(`failed to generate resources: item ${i} is not an object`);
    return json;
  });
  try {
    g.port.apply(namespace, objects);
  } catch (error) {
    const denied = error instanceof CelPortError && (error.reason === 'Forbidden' || error.reason === 'Unauthorized');
    throw celError(
      `failed to generate resources: ${denied ? 'permission denied: ' : ''}${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return true;
}
