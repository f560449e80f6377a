/** Running one operation of a step: resource operations, scripts and commands, sleep and wait. */
import { resolve } from 'node:path';
import { isObject, type JsonObject, type JsonValue, errorMessage } from '@edict/foundation';
import { assertTree, formatFailure, type AssertionFailure } from '../assertion/assertion-tree';
import { diffExpectedActual } from '../assertion/diff';
import { NoKindMatchError, TransientClusterError } from '../cluster/cluster-errors';
import { BINDING_NAME, Bindings } from '../expressions/bindings';
import { evaluateString, evaluateToString, templateValue } from '../expressions/template';
import type {
  BindingSpec,
  ExecOperation,
  Expectation,
  Operation,
  OutputSpec,
  ResourceOperation,
  Step,
  WaitOperation,
} from '../load/model';
import { processErrorText } from '../process/process-runner';
import { describeObject, type TestContext } from './context';
import { pollUntil, sleep } from './poll';
import { readResourceFiles } from './resource-files';

/** An operation did not pass: why, and for assertions the diff against the closest candidate. */
export class OperationFailure extends Error {
  override readonly name = 'OperationFailure';
  constructor(
    readonly reason: string,
    readonly diff?: string,
    readonly resource?: string,
  ) {
    super(reason);
  }
}

export interface OperationScope {
  readonly context: TestContext;
  readonly step: Step | undefined;
  readonly stepIndex: number;
  readonly bindings: Bindings;
}

/** Runs an operation; resolves with the bindings its outputs add, throws OperationFailure. */
export async function runOperation(operation: Operation, scope: OperationScope): Promise<Record<string, JsonValue>> {
  let bindings = resolveBindings(
    operation.bindings,
    scope.bindings.with('operation', { id: operation.index + 1, resourceId: 1 }),
  );
  scope = { ...scope, bindings };
  switch (operation.type) {
    case 'apply':
    case 'create':
    case 'update':
    case 'patch':
    case 'delete':
    case 'assert':
    case 'error': {
      const outputs: Record<string, JsonValue> = {};
      const objects = loadObjects(operation, scope);
      for (const [i, object] of objects.entries()) {
        bindings = scope.bindings.with('operation', { id: operation.index + 1, resourceId: i + 1 });
        Object.assign(outputs, await runResourceOperation(operation, object, { ...scope, bindings }));
      }
      return outputs;
    }
    case 'script':
    case 'command':
      return runExec(operation, scope);
    case 'sleep':
      await sleep(operation.duration * scope.context.settings.sleepScale);
      return {};
    case 'wait':
      await runWait(operation, scope);
      return {};
    default:
      // describe, events, podLogs, get, proxy: diagnostics only in chainsaw.
      return {};
  }
}

/** Binding specs in order, each seeing the ones before it; values are templated. */
export function resolveBindings(specs: readonly BindingSpec[], bindings: Bindings): Bindings {
  let scope = bindings;
  for (const spec of specs) {
    const name = evaluateToString(spec.name, scope, 'bindings.name');
    if (!BINDING_NAME.test(name)) throw new OperationFailure(`invalid binding name "${name}"`);
    scope = scope.with(name, templateValue(spec.value, scope));
  }
  return scope;
}

function loadObjects(operation: ResourceOperation, scope: OperationScope): JsonObject[] {
  const { context, bindings } = scope;
  if (operation.resource) return [operation.resource];
  if (operation.ref) {
    const ref = operation.ref;
    const metadata: JsonObject = {};
    for (const key of ['name', 'namespace', 'labels'] as const) if (ref[key] !== undefined) metadata[key] = ref[key]!;
    return [{ apiVersion: ref['apiVersion'] ?? null, kind: ref['kind'] ?? null, metadata }];
  }
  const file = evaluateToString(operation.file!, bindings, 'file');
  try {
    return readResourceFiles(file, context.test.folder);
  } catch (error) {
    throw new OperationFailure((error as Error).message);
  }
}

async function runResourceOperation(
  operation: ResourceOperation,
  original: JsonObject,
  scope: OperationScope,
): Promise<Record<string, JsonValue>> {
  const { context, step, bindings } = scope;
  const template = context.template(step, operation.template);
  let object = structuredClone(original);
  if (template) {
    object =
      operation.type === 'assert' || operation.type === 'error'
        ? templateLookupFields(object, bindings)
        : (templateValue(object, bindings) as JsonObject);
  }
  const typed =
    typeof object['apiVersion'] === 'string' &&
    object['apiVersion'] !== '' &&
    typeof object['kind'] === 'string' &&
    object['kind'] !== '';
  if (typed) object = await withNamespace(object, context);
  switch (operation.type) {
    case 'apply':
    case 'create':
    case 'update':
    case 'patch':
      return writeObject(operation, object, scope);
    case 'delete':
      await deleteObjects(operation, object, scope);
      return {};
    case 'assert':
      await assertObject(object, typed, scope, context.timeout('assert', step, operation.timeout));
      return {};
    case 'error':
      await refuteObject(object, typed, scope, context.timeout('error', step, operation.timeout));
      return {};
  }
}

/** For assert and error, only what finds the candidates is templated; the rest is the assertion tree. */
function templateLookupFields(object: JsonObject, bindings: Bindings): JsonObject {
  const out = { ...object };
  for (const key of ['apiVersion', 'kind'] as const) {
    if (typeof out[key] === 'string') out[key] = templateValue(out[key]!, bindings);
  }
  if (isObject(out['metadata'])) {
    const metadata = { ...out['metadata'] };
    for (const key of ['name', 'namespace'] as const) {
      if (typeof metadata[key] === 'string') metadata[key] = templateValue(metadata[key]!, bindings);
    }
    if (isObject(metadata['labels'])) {
      const labels = { ...metadata['labels'] };
      for (const [key, value] of Object.entries(labels)) {
        if (typeof value === 'string') labels[key] = templateValue(value, bindings);
      }
      metadata['labels'] = labels;
    }
    out['metadata'] = metadata;
  }
  return out;
}

/**
 * Namespaced objects without a namespace go into the test's namespace. As chainsaw's namespacer,
 * this maps the kind: one the server does not serve fails the operation here.
 */
async function withNamespace(object: JsonObject, context: TestContext): Promise<JsonObject> {
  const metadata = isObject(object['metadata']) ? object['metadata'] : {};
  if (typeof metadata['namespace'] === 'string' && metadata['namespace'] !== '') return object;
  let namespaced: boolean;
  try {
    namespaced = await context.client.isNamespaced(String(object['apiVersion']), String(object['kind']));
  } catch (error) {
    if (error instanceof NoKindMatchError) throw new OperationFailure(error.message, undefined, describeObject(object));
    // Discovery failed otherwise (the server busy): leave it; the operation reports the server's answer.
    return object;
  }
  if (!namespaced) return object;
  return { ...object, metadata: { ...metadata, namespace: context.namespace } };
}

function refOf(object: JsonObject): { apiVersion: string; kind: string; name: string; namespace?: string } {
  const metadata = (isObject(object['metadata']) ? object['metadata'] : {}) as { name?: string; namespace?: string };
  return {
    apiVersion: String(object['apiVersion'] ?? ''),
    kind: String(object['kind'] ?? ''),
    name: metadata.name ?? '',
    namespace: metadata.namespace,
  };
}

/**
 * apply, create, update, patch, as chainsaw runs them: each attempt first reads the object (create
 * wants it absent, update and patch want it present, apply chooses create or merge patch); that read
 * never feeds `expect`, and its failures are retried until the timeout. The write's answer is
 * checked against `expect` once: only a transient answer (conflict, timeout, throttling,
 * unavailability) is retried, and the answer standing at the timeout is the one checked. A kind the
 * server does not serve fails the operation at once.
 */
async function writeObject(
  operation: ResourceOperation,
  object: JsonObject,
  scope: OperationScope,
): Promise<Record<string, JsonValue>> {
  const { context, step } = scope;
  const ref = refOf(object);
  if (!ref.apiVersion || !ref.kind)
    throw new OperationFailure(`${operation.type}: the object has no apiVersion or kind`);
  if (!ref.name)
    throw new OperationFailure(`${operation.type}: the object ${describeObject(object)} has no metadata.name`);
  const timeout = context.timeout('apply', step, operation.timeout);
  let last: WriteAttempt | undefined;
  await pollUntil(timeout, context.settings.pollIntervalMs, async () => {
    last = await attemptWrite(operation, object, ref as WriteRef, scope);
    if (last.kind === 'precondition') return false;
    return !(last.error instanceof TransientClusterError);
  });
  if (!last || last.kind === 'precondition') {
    throw new OperationFailure(
      last?.reason ?? `${operation.type} did not succeed within ${timeout} ms`,
      undefined,
      describeObject(object),
    );
  }
  try {
    return processOutputs(
      operation.outputs,
      object,
      checkExpectations(operation.expect, object, last.error, scope.bindings),
    );
  } catch (failure) {
    if (!(failure instanceof OperationFailure)) throw failure;
    throw new OperationFailure(failure.reason, failure.diff, describeObject(object));
  }
}

type WriteRef = { apiVersion: string; kind: string; name: string; namespace?: string };

/** One attempt: the read before the write failed (`precondition`), or the write answered. */
type WriteAttempt =
  { readonly kind: 'precondition'; readonly reason: string } | { readonly kind: 'answer'; readonly error?: Error };

async function attemptWrite(
  operation: ResourceOperation,
  object: JsonObject,
  ref: WriteRef,
  scope: OperationScope,
): Promise<WriteAttempt> {
  const { context, stepIndex } = scope;
  let existing: JsonObject | undefined;
  try {
    existing = await context.client.get(ref);
  } catch (error) {
    if (error instanceof NoKindMatchError) throw new OperationFailure(error.message, undefined, describeObject(object));
    return { kind: 'precondition', reason: (error as Error).message };
  }
  if (operation.type === 'create' && existing) {
    return { kind: 'precondition', reason: `${describeObject(object)}: the resource already exists in the cluster` };
  }
  if ((operation.type === 'update' || operation.type === 'patch') && !existing) {
    return { kind: 'precondition', reason: `${describeObject(object)} not found` };
  }
  try {
    if (!existing) {
      await context.client.create(object);
      context.recordCreated(stepIndex, object);
    } else if (operation.type === 'update') {
      const existingMetadata = (existing['metadata'] ?? {}) as JsonObject;
      const metadata = { ...((object['metadata'] ?? {}) as JsonObject) };
      metadata['resourceVersion'] = existingMetadata['resourceVersion'] ?? null;
      await context.client.update({ ...object, metadata });
    } else {
      // apply on an existing object, and patch: a merge patch of the given object.
      await context.client.patch(ref, object);
    }
    return { kind: 'answer' };
  } catch (caught) {
    if (caught instanceof NoKindMatchError)
      throw new OperationFailure(caught.message, undefined, describeObject(object));
    return { kind: 'answer', error: caught instanceof Error ? caught : new Error(String(caught)) };
  }
}

/**
 * chainsaw's expect: with no expectation matching the object, the operation's own error decides;
 * otherwise every matching expectation's check must hold, whatever the error. Returns the bindings
 * with `$error` for the outputs.
 */
function checkExpectations(
  expect: readonly Expectation[],
  object: JsonObject,
  error: Error | undefined,
  bindings: Bindings,
): Bindings {
  const scoped = bindings.with('error', error ? error.message : null);
  let matched = false;
  const failures: AssertionFailure[] = [];
  for (const expectation of expect) {
    try {
      if (expectation.match !== undefined && assertTree(expectation.match, object, scoped).length > 0) continue;
      matched = true;
      failures.push(...assertTree(expectation.check, object, scoped));
    } catch (caught) {
      throw new OperationFailure(errorMessage(caught));
    }
  }
  if (matched) {
    if (failures.length > 0) throw new OperationFailure(failures.map(formatFailure).join('\n'));
    return scoped;
  }
  if (error) throw new OperationFailure(error.message);
  return scoped;
}

function processOutputs(
  outputs: readonly OutputSpec[],
  object: JsonValue,
  bindings: Bindings,
): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  let scope = bindings;
  for (const output of outputs) {
    try {
      if (output.match !== undefined && assertTree(output.match, object, scope).length > 0) continue;
      const name = evaluateToString(output.name, scope, 'outputs.name');
      if (!BINDING_NAME.test(name)) throw new OperationFailure(`invalid output name "${name}"`);
      const value = templateValueAt(output.value, object, scope);
      out[name] = value;
      scope = scope.with(name, value);
    } catch (caught) {
      if (caught instanceof OperationFailure) throw caught;
      throw new OperationFailure(`outputs: ${errorMessage(caught)}`);
    }
  }
  return out;
}

/** Templating where `@` is the operation's object (outputs), not the leaf itself. */
function templateValueAt(value: JsonValue, data: JsonValue, bindings: Bindings): JsonValue {
  if (typeof value === 'string') return evaluateString(value, data, bindings);
  if (Array.isArray(value)) return value.map((item) => templateValueAt(item, data, bindings));
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) out[key] = templateValueAt(item, data, bindings);
    return out;
  }
  return value;
}

/** Candidates of an assert/error: by name, or by namespace and the labels the expectation names. */
async function candidates(object: JsonObject, context: TestContext): Promise<JsonObject[]> {
  const ref = refOf(object);
  if (ref.name) {
    const found = await context.client.get(ref);
    return found ? [found] : [];
  }
  const labels =
    isObject(object['metadata']) && isObject(object['metadata']['labels']) ? object['metadata']['labels'] : {};
  const selector = Object.entries(labels)
    .filter(([, value]) => typeof value === 'string')
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(',');
  return context.client.list(
    { apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace },
    selector ? { labelSelector: selector } : {},
  );
}

async function assertObject(
  expected: JsonObject,
  typed: boolean,
  scope: OperationScope,
  timeout: number,
): Promise<void> {
  const { context, bindings } = scope;
  let last: OperationFailure | undefined;
  const passed = await pollUntil(timeout, context.settings.pollIntervalMs, async () => {
    if (!typed) {
      const failures = evaluate(() => assertTree(expected, null, bindings));
      if (failures.length === 0) return true;
      last = new OperationFailure(failures.map(formatFailure).join('\n'));
      return false;
    }
    let found: JsonObject[];
    try {
      found = await candidates(expected, context);
    } catch (error) {
      last = new OperationFailure((error as Error).message, undefined, describeObject(expected));
      if (error instanceof NoKindMatchError) throw last;
      return false;
    }
    if (found.length === 0) {
      last = new OperationFailure(
        `${describeObject(expected)}: actual resource not found`,
        undefined,
        describeObject(expected),
      );
      return false;
    }
    let best: { candidate: JsonObject; failures: AssertionFailure[] } | undefined;
    for (const candidate of found) {
      const failures = evaluate(() => assertTree(expected, candidate, bindings));
      if (failures.length === 0) return true;
      if (!best || failures.length < best.failures.length) best = { candidate, failures };
    }
    const reason = `${describeObject(best!.candidate)}: ${best!.failures.map(formatFailure).join('; ')}`;
    last = new OperationFailure(reason, diffExpectedActual(expected, best!.candidate), describeObject(best!.candidate));
    return false;
  });
  if (!passed) throw last ?? new OperationFailure(`assert did not pass within ${timeout} ms`);
}

async function refuteObject(
  expected: JsonObject,
  typed: boolean,
  scope: OperationScope,
  timeout: number,
): Promise<void> {
  const { context, bindings } = scope;
  let last: OperationFailure | undefined;
  const passed = await pollUntil(timeout, context.settings.pollIntervalMs, async () => {
    if (!typed) {
      if (evaluate(() => assertTree(expected, null, bindings)).length > 0) return true;
      last = new OperationFailure('expectation matched');
      return false;
    }
    let found: JsonObject[];
    try {
      found = await candidates(expected, context);
    } catch (error) {
      last = new OperationFailure((error as Error).message, undefined, describeObject(expected));
      if (error instanceof NoKindMatchError) throw last;
      return false;
    }
    const matching = found.filter(
      (candidate) => evaluate(() => assertTree(expected, candidate, bindings)).length === 0,
    );
    if (matching.length === 0) return true;
    last = new OperationFailure(
      matching.map((candidate) => `${describeObject(candidate)}: resource matches expectation`).join('\n'),
      undefined,
      describeObject(matching[0]!),
    );
    return false;
  });
  if (!passed) throw last ?? new OperationFailure(`error did not pass within ${timeout} ms`);
}

/** Internal assertion errors stop the operation at once, as in chainsaw. */
function evaluate(run: () => AssertionFailure[]): AssertionFailure[] {
  try {
    return run();
  } catch (error) {
    throw new OperationFailure(errorMessage(error));
  }
}

async function deleteObjects(operation: ResourceOperation, object: JsonObject, scope: OperationScope): Promise<void> {
  const { context, step, bindings } = scope;
  const ref = refOf(object);
  if (!ref.apiVersion || !ref.kind) throw new OperationFailure('delete: the object has no apiVersion or kind');
  const timeout = context.timeout('delete', step, operation.timeout);
  let targets: JsonObject[];
  try {
    targets = await candidates(object, context);
  } catch (error) {
    throw new OperationFailure((error as Error).message, undefined, describeObject(object));
  }
  const problems: string[] = [];
  const deleted: JsonObject[] = [];
  const propagationPolicy = context.propagation(step, operation.deletionPropagationPolicy);
  for (const target of targets) {
    let error: Error | undefined;
    try {
      if (await context.client.delete(refOf(target), { propagationPolicy })) deleted.push(target);
    } catch (caught) {
      error = caught instanceof Error ? caught : new Error(String(caught));
    }
    try {
      checkExpectations(operation.expect, target, error, bindings);
    } catch (failure) {
      problems.push(failure instanceof OperationFailure ? failure.reason : String(failure));
    }
  }
  for (const target of deleted) {
    const gone = await waitGone(refOf(target), context, timeout);
    if (!gone) problems.push(`${describeObject(target)}: still present ${timeout} ms after its deletion`);
  }
  if (problems.length > 0) throw new OperationFailure(problems.join('\n'), undefined, describeObject(object));
}

export async function waitGone(
  ref: { apiVersion: string; kind: string; name: string; namespace?: string },
  context: TestContext,
  timeout: number,
): Promise<boolean> {
  return pollUntil(timeout, context.settings.pollIntervalMs, async () => {
    try {
      return (await context.client.get(ref)) === undefined;
    } catch (error) {
      // A kind no longer served (its CRD deleted) took its objects with it.
      return error instanceof NoKindMatchError;
    }
  });
}

async function runExec(operation: ExecOperation, scope: OperationScope): Promise<Record<string, JsonValue>> {
  const { context, step, bindings } = scope;
  const env: Record<string, string> = { ...context.settings.env };
  if (context.settings.kubeconfigPath) env['KUBECONFIG'] = context.settings.kubeconfigPath;
  let namespaceSet = false;
  for (const spec of operation.env) {
    const name = evaluateToString(spec.name, bindings, 'env.name');
    const value = templateValue(spec.value, bindings);
    if (typeof value !== 'string')
      throw new OperationFailure(`env ${name}: value must be a string, got ${JSON.stringify(value)}`);
    env[name] = value;
    if (name === 'NAMESPACE') namespaceSet = true;
  }
  if (!namespaceSet) env['NAMESPACE'] = context.namespace;
  const cwd = operation.workDir ? resolve(context.test.folder, operation.workDir) : context.test.folder;
  const timeoutMs = context.timeout('exec', step, operation.timeout);
  const request =
    operation.type === 'script'
      ? { command: 'sh', args: ['-c', operation.content!], cwd, env, timeoutMs }
      : { command: operation.entrypoint!, args: operation.args.map((arg) => expandEnv(arg, env)), cwd, env, timeoutMs };
  const result = await context.processes.run(request);
  const errorText = processErrorText(result);
  const scoped = bindings.with('stdout', result.stdout).with('stderr', result.stderr).with('error', errorText);
  if (operation.check !== undefined) {
    const failures = evaluate(() => assertTree(operation.check!, null, scoped));
    if (failures.length > 0) {
      throw new OperationFailure(
        `${failures.map(formatFailure).join('\n')}${outputExcerpt(result.stdout, result.stderr)}`,
      );
    }
  } else if (errorText !== null) {
    throw new OperationFailure(
      `${operation.type} failed: ${result.timedOut ? `timed out after ${timeoutMs} ms (${errorText})` : errorText}${outputExcerpt(result.stdout, result.stderr)}`,
    );
  }
  return processOutputs(operation.outputs, null, scoped);
}

/** `$VAR` and `${VAR}` from the environment, as chainsaw expands command arguments. */
function expandEnv(arg: string, env: Readonly<Record<string, string>>): string {
  return arg.replace(
    /\$(?:\{(\w+)\}|(\w+))/g,
    (_, braced: string | undefined, bare: string | undefined) => env[(braced ?? bare)!] ?? '',
  );
}

function outputExcerpt(stdout: string, stderr: string): string {
  const cut = (text: string): string => (text.length > 2000 ? `${text.slice(0, 2000)}...` : text);
  const parts: string[] = [];
  if (stdout.trim()) parts.push(`\nstdout:\n${cut(stdout.trim())}`);
  if (stderr.trim()) parts.push(`\nstderr:\n${cut(stderr.trim())}`);
  return parts.join('');
}

async function runWait(operation: WaitOperation, scope: OperationScope): Promise<void> {
  const { context, step, bindings } = scope;
  const base: JsonObject = {
    apiVersion: evaluateToString(operation.apiVersion, bindings, 'wait.apiVersion'),
    kind: evaluateToString(operation.kind, bindings, 'wait.kind'),
    metadata: {
      ...(operation.name ? { name: evaluateToString(operation.name, bindings, 'wait.name') } : {}),
      ...(operation.namespace ? { namespace: evaluateToString(operation.namespace, bindings, 'wait.namespace') } : {}),
    },
  };
  const object = await withNamespace(base, context);
  const timeout = context.timeout('assert', step, operation.timeout);
  const selector = operation.selector ? evaluateToString(operation.selector, bindings, 'wait.selector') : undefined;
  const find = async (): Promise<JsonObject[]> => {
    const ref = refOf(object);
    if (ref.name) {
      const found = await context.client.get(ref);
      return found ? [found] : [];
    }
    return context.client.list(ref, selector ? { labelSelector: selector } : {});
  };
  const passed = await pollUntil(timeout, context.settings.pollIntervalMs, async () => {
    const found = await find().catch(() => undefined);
    if (found === undefined) return false;
    if (operation.for.deletion) return found.length === 0;
    const condition = operation.for.condition!;
    const wanted = (condition.value ?? 'true').toLowerCase();
    return (
      found.length > 0 &&
      found.every((item) => {
        const status = isObject(item['status']) ? item['status'] : {};
        const conditions = Array.isArray(status['conditions']) ? status['conditions'] : [];
        return conditions.some(
          (c) =>
            isObject(c) &&
            String(c['type']).toLowerCase() === condition.name.toLowerCase() &&
            String(c['status']).toLowerCase() === wanted,
        );
      })
    );
  });
  if (!passed) {
    const what = operation.for.deletion ? 'deletion' : `condition ${operation.for.condition!.name}`;
    throw new OperationFailure(`wait: ${describeObject(object)} did not reach ${what} within ${timeout} ms`);
  }
}
