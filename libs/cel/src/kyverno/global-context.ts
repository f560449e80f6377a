import type { Environment } from '@marcbachmann/cel-js';
import { isObject, type JsonValue } from '@edict/foundation';
import { celError } from '../libraries/errors';
import { toCel } from '../values';
import { missingPort, type KyvernoCalls } from './calls';
import type { CelGlobalContextPort } from './ports';
import { fromDecodedJson } from './values';

export const GLOBAL_CONTEXT_TYPE = 'globalcontext.Context';

export class CelGlobalContext {
  constructor(
    readonly calls: KyvernoCalls,
    readonly port: CelGlobalContextPort | undefined,
  ) {}
}

/**
 * Kyverno's globalcontext library: `globalContext.Get(name[, projection])` (and `get`), the data of
 * a GlobalContextEntry; null when there is no such entry. Kubernetes objects read as unstructured
 * objects do (whole numbers are ints), other data as decoded JSON (numbers are doubles).
 * GlobalContextEntries are cluster-wide: a namespaced policy is refused (fail closed).
 */
export function registerGlobalContext(env: Environment): void {
  env.registerType(GLOBAL_CONTEXT_TYPE, CelGlobalContext);
  for (const get of ['Get', 'get']) {
    env.registerFunction(`${GLOBAL_CONTEXT_TYPE}.${get}(string): dyn`, (g: CelGlobalContext, name: string) =>
      read(g, name, ''),
    );
    env.registerFunction(
      `${GLOBAL_CONTEXT_TYPE}.${get}(string, string): dyn`,
      (g: CelGlobalContext, name: string, projection: string) => read(g, name, projection),
    );
  }
}

function read(g: CelGlobalContext, name: string, projection: string): unknown {
  if (!g.port) throw missingPort('globalContext', `cannot read entry ${name}`);
  // Kyverno's ConfineGlobalContext: entries are cluster-wide, a namespaced policy reads none.
  if (g.calls.scope.policyNamespace) {
    throw celError('failed to get global reference: globalContext.* is not allowed in namespaced policies');
  }
  const port = g.port;
  const answer = g.calls.run(
    'failed to get global reference',
    (call) => port.get(name, projection, call),
    undefined,
    `globalContext:${JSON.stringify([name, projection])}`,
  );
  return answer instanceof Promise ? answer.then(convert) : convert(answer);
}

function convert(data: JsonValue | undefined): unknown {
  if (data === undefined || data === null) return null;
  // Kyverno turns what looks like a Kubernetes object into unstructured content.
  if (isObject(data) && 'apiVersion' in data && 'kind' in data) return toCel(data);
  return fromDecodedJson(data);
}
