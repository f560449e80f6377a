import { isBudgetError, type EvaluationBudget, errorMessage, type JsonValue } from '@edict/foundation';
import { compileJmesPath } from '@edict/jmespath';
import type { ContextLoaders, LoaderScope } from '../core/loaders';
import type { MaybePromise } from '../core/maybe-promise';
import type { ContextEntry } from '../policy/types';
import { substituteVariables, type EvaluationContext } from '../variables';

export class ContextEntryError extends Error {}

export interface ContextLoadOptions {
  loaders?: ContextLoaders;
  /** Names already supplied by the caller (CLI values); external lookups for them are skipped. */
  provided?: ReadonlySet<string>;
  /** Who asks (the policy's namespace), passed on to every loader call. */
  scope?: LoaderScope;
}

/**
 * Loads a rule's (or foreach's) context entries into the evaluation context, in order, so that later
 * entries can use earlier ones. As with Kyverno's deferred loading (on by default), an entry that
 * fails to load is left unset rather than failing the rule: a rule that then reads it fails on the
 * missing variable, one that never reads it is unaffected. `variable` entries are evaluated only
 * when a query first names them (so one that would evaluate to nil on a DELETE harms no rule that
 * skips DELETEs); external lookups are made here, as they are asynchronous. A loader that returns
 * `undefined` leaves the entry unset too (the CLI does this for lookups the test does not mock).
 */
export function loadContextEntries(
  entries: readonly ContextEntry[] | undefined,
  ctx: EvaluationContext,
  options: ContextLoadOptions,
): MaybePromise<void> {
  try {
    return loadEntriesFrom(entries ?? [], 0, ctx, options);
  } catch (error) {
    // Failures arrive as a rejection, as they always have: callers await it.
    return Promise.reject(error as Error);
  }
}

/**
 * The entries from `start` on. `variable` entries only register a deferred load, so a block
 * without external entries finishes synchronously; the first external one continues asynchronously.
 */
function loadEntriesFrom(
  entries: readonly ContextEntry[],
  start: number,
  ctx: EvaluationContext,
  options: ContextLoadOptions,
): MaybePromise<void> {
  for (let index = start; index < entries.length; index++) {
    const entry = entries[index]!;
    if (entry.variable) {
      // A `variable` entry replaces whatever the name held (a second entry of the same name wins
      // outright); external data is merged into the context like any other added document.
      ctx.addDeferredLoader(entry.name, (current) => current.addEntry(entry.name, loadVariable(entry, current), true));
      continue;
    }
    if (!entry.configMap && !entry.apiCall && !entry.globalReference && !entry.imageRegistry) {
      throw new ContextEntryError(`invalid context entry ${entry.name}`);
    }
    return loadExternal(entry, ctx, options).then(() => loadEntriesFrom(entries, index + 1, ctx, options));
  }
}

async function loadExternal(entry: ContextEntry, ctx: EvaluationContext, options: ContextLoadOptions): Promise<void> {
  let value: JsonValue | undefined;
  try {
    value = await loadEntry(entry, ctx, options);
  } catch (error) {
    if (isBudgetError(error)) throw error;
    ctx.noteLoadFailure(entry.name, errorMessage(error));
    return;
  }
  if (value !== undefined) ctx.addEntry(entry.name, value, false);
}

async function loadEntry(
  entry: ContextEntry,
  ctx: EvaluationContext,
  options: ContextLoadOptions,
): Promise<JsonValue | undefined> {
  if (options.provided?.has(entry.name)) return undefined;
  const loaders = options.loaders;
  const scope: LoaderScope = options.scope ?? {};
  if (entry.configMap) {
    const name = substituteString(entry.configMap.name, ctx, entry.name, 'configMap.name');
    // Kyverno: an empty namespace means the Policy's own namespace, `default` for a ClusterPolicy.
    const namespace =
      substituteString(entry.configMap.namespace ?? '', ctx, entry.name, 'configMap.namespace') ||
      (scope.policyNamespace ?? 'default');
    const configMap = await loaders?.configMap(namespace, name, scope);
    if (configMap === undefined) return undefined;
    return { data: configMap.data ?? {}, metadata: configMap.metadata };
  }
  if (entry.apiCall) {
    const call = substituteVariables(entry.apiCall as unknown as JsonValue, ctx) as typeof entry.apiCall;
    let response: JsonValue | undefined;
    try {
      response = await loaders?.apiCall({ ...call, jmesPath: undefined, default: undefined }, scope);
    } catch (error) {
      if (entry.apiCall.default !== undefined) return entry.apiCall.default;
      throw error;
    }
    if (response === undefined) return entry.apiCall.default;
    return applyJmesPath(entry, call.jmesPath, response, entry.apiCall.default, ctx.budget);
  }
  if (entry.globalReference) {
    const data = await loaders?.globalReference(
      substituteString(entry.globalReference.name, ctx, entry.name, 'globalReference.name'),
      scope,
    );
    if (data === undefined) return undefined;
    const path =
      entry.globalReference.jmesPath && substituteString(entry.globalReference.jmesPath, ctx, entry.name, 'jmesPath');
    return applyJmesPath(entry, path, data, undefined, ctx.budget);
  }
  const registry = entry.imageRegistry!; // the caller checked the entry has a source
  const reference = substituteVariables(registry.reference, ctx);
  if (typeof reference !== 'string') {
    throw new ContextEntryError(
      `invalid image reference ${JSON.stringify(reference)}, image reference must be a string`,
    );
  }
  const data = await loaders?.imageRegistry(reference, registry.imageRegistryCredentials, scope);
  if (data === undefined) return undefined;
  const path = registry.jmesPath && substituteString(registry.jmesPath, ctx, entry.name, 'jmesPath');
  return applyJmesPath(entry, path, data, undefined, ctx.budget);
}

/** `variable` entries: a literal value, a JMESPath over the context or over the value, and a default. */
function loadVariable(entry: ContextEntry, ctx: EvaluationContext): JsonValue {
  const variable = entry.variable!;
  const path = variable.jmesPath ? substituteString(variable.jmesPath, ctx, entry.name, 'jmesPath') : '';
  const fallback = variable.default !== undefined ? substituteVariables(variable.default, ctx) : undefined;
  let output: JsonValue | undefined = fallback;
  if (variable.value !== undefined) {
    const value = substituteVariables(variable.value, ctx);
    output = path ? applyJmesPath(entry, path, value, fallback, ctx.budget) : value;
  } else if (path) {
    output = queryOrDefault(entry, () => ctx.query(path), fallback, path);
  }
  if (output === undefined || output === null) {
    throw new ContextEntryError(`unable to add context entry for variable ${entry.name} since it evaluated to nil`);
  }
  return output;
}

function applyJmesPath(
  entry: ContextEntry,
  path: string | undefined,
  data: JsonValue,
  fallback: JsonValue | undefined,
  budget: EvaluationBudget,
): JsonValue {
  if (!path) return data;
  return queryOrDefault(entry, () => compileJmesPath(path).search(data, budget), fallback, path);
}

function queryOrDefault(
  entry: ContextEntry,
  run: () => JsonValue,
  fallback: JsonValue | undefined,
  path: string,
): JsonValue {
  try {
    const result = run();
    if (result !== null || fallback === undefined) return result;
    return fallback;
  } catch (error) {
    if (isBudgetError(error)) throw error;
    if (fallback !== undefined) return fallback;
    throw new ContextEntryError(
      `failed to apply jmespath ${path} for context entry ${entry.name}: ${(error as Error).message}`,
    );
  }
}

function substituteString(template: string, ctx: EvaluationContext, entryName: string, field: string): string {
  const value = substituteVariables(template, ctx);
  if (typeof value !== 'string') {
    throw new ContextEntryError(
      `context entry ${entryName}: ${field} must resolve to a string, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}
