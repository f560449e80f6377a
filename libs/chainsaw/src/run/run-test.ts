/**
 * One test: its namespace, its steps in order (try, then catch on failure, finally always), then
 * the cleanup: per step in reverse, the objects the step created (newest first) and the step's
 * cleanup operations; the namespace last.
 */
import type { JsonValue } from '@edict/foundation';
import { NoKindMatchError } from '../cluster/cluster-errors';
import { Bindings } from '../expressions/bindings';
import type { Operation, Step } from '../load/model';
import { describeObject, type TestContext } from './context';
import type { ChainsawFailure } from './options';
import { OperationFailure, resolveBindings, runOperation, waitGone } from './operations';
import { sleep } from './poll';

export interface TestRunOutcome {
  readonly failures: ChainsawFailure[];
  /** True when the failure is the runner's or the cluster's, not an expectation (outcome error). */
  readonly errored: boolean;
}

export async function runTestSteps(context: TestContext, baseBindings: Bindings): Promise<TestRunOutcome> {
  const { test } = context;
  const failures: ChainsawFailure[] = [];
  const createdNamespace = await ensureNamespace(context, failures);
  if (createdNamespace === undefined) return { failures, errored: true };

  let testBindings: Bindings;
  try {
    testBindings = resolveBindings(test.bindings, baseBindings);
  } catch (error) {
    failures.push({ phase: 'setup', reason: `bindings: ${(error as Error).message}` });
    return { failures, errored: true };
  }

  let ranSteps = 0;
  for (const [stepIndex, step] of test.steps.entries()) {
    ranSteps = stepIndex + 1;
    const ok = await runStep(context, step, stepIndex, testBindings, failures);
    if (!ok) break;
  }

  if (test.delayBeforeCleanup ?? context.configuration.delayBeforeCleanup) {
    await sleep((test.delayBeforeCleanup ?? context.configuration.delayBeforeCleanup)! * context.settings.sleepScale);
  }
  for (let stepIndex = ranSteps - 1; stepIndex >= 0; stepIndex--) {
    const step = test.steps[stepIndex]!;
    await cleanupStep(context, step, stepIndex, testBindings, failures);
  }
  if (createdNamespace && !skipDelete(context, undefined)) await deleteNamespace(context, failures);
  return { failures, errored: false };
}

async function runStep(
  context: TestContext,
  step: Step,
  stepIndex: number,
  testBindings: Bindings,
  failures: ChainsawFailure[],
): Promise<boolean> {
  let bindings: Bindings;
  try {
    bindings = resolveBindings(step.bindings, testBindings.with('step', { id: stepIndex + 1 }));
  } catch (error) {
    failures.push({ step: step.name, stepIndex, phase: 'try', reason: `bindings: ${(error as Error).message}` });
    return false;
  }
  const tryResult = await runBlock(context, step, stepIndex, 'try', step.try, bindings, failures);
  let ok = tryResult.ok;
  if (!ok) {
    const catchOps = [...step.catch, ...context.test.catch];
    await runBlock(context, step, stepIndex, 'catch', catchOps, tryResult.bindings, failures);
  }
  const finallyResult = await runBlock(context, step, stepIndex, 'finally', step.finally, tryResult.bindings, failures);
  ok &&= finallyResult.ok;
  return ok;
}

/** Runs operations in order; outputs of one become bindings of the next. Stops at a failure. */
async function runBlock(
  context: TestContext,
  step: Step,
  stepIndex: number,
  phase: 'try' | 'catch' | 'finally' | 'cleanup',
  operations: readonly Operation[],
  bindings: Bindings,
  failures: ChainsawFailure[],
): Promise<{ ok: boolean; bindings: Bindings }> {
  let scope = bindings;
  let ok = true;
  for (const operation of operations) {
    try {
      const outputs: Record<string, JsonValue> = await runOperation(operation, {
        context,
        step,
        stepIndex,
        bindings: scope,
      });
      scope = scope.withAll(outputs);
    } catch (error) {
      const failure = error instanceof OperationFailure ? error : undefined;
      failures.push({
        step: step.name,
        stepIndex,
        phase,
        operation: {
          type: operation.type,
          index: operation.index,
          ...('file' in operation && operation.file ? { file: operation.file } : {}),
          ...(failure?.resource ? { resource: failure.resource } : {}),
        },
        reason: failure ? failure.reason : `internal error: ${(error as Error).message ?? String(error)}`,
        ...(failure?.diff ? { diff: failure.diff } : {}),
      });
      ok = false;
      if (!operation.continueOnError) return { ok, bindings: scope };
    }
  }
  return { ok, bindings: scope };
}

function skipDelete(context: TestContext, step: Step | undefined): boolean {
  return step?.skipDelete ?? context.test.skipDelete ?? context.configuration.skipDelete;
}

async function cleanupStep(
  context: TestContext,
  step: Step,
  stepIndex: number,
  testBindings: Bindings,
  failures: ChainsawFailure[],
): Promise<void> {
  if (!skipDelete(context, step)) {
    const created = [...(context.created.get(stepIndex) ?? [])].reverse();
    const timeout = context.timeout('cleanup', step);
    for (const object of created) {
      const ref = { apiVersion: object.apiVersion, kind: object.kind, name: object.name, namespace: object.namespace };
      try {
        const deleted = await context.client.delete(ref, { propagationPolicy: context.propagation(step) });
        if (deleted && !(await waitGone(ref, context, timeout))) {
          throw new Error(`still present ${timeout} ms after its deletion`);
        }
      } catch (error) {
        // Its kind no longer served (the test deleted the CRD): the object went with it.
        if (error instanceof NoKindMatchError) continue;
        failures.push({
          step: step.name,
          stepIndex,
          phase: 'cleanup',
          operation: { type: 'cleanup', index: 0, resource: describeObject({ ...object, metadata: object }) },
          reason: `cleanup of ${describeObject({ ...object, metadata: object })}: ${(error as Error).message}`,
        });
      }
    }
  }
  if (step.cleanup.length > 0) {
    const bindings = testBindings.with('step', { id: stepIndex + 1 });
    await runBlock(context, step, stepIndex, 'cleanup', step.cleanup, bindings, failures);
  }
}

/**
 * Creates the test's namespace unless it exists. Resolves true when this test created it (and so
 * deletes it), false when it existed, undefined when it could not be created.
 */
async function ensureNamespace(context: TestContext, failures: ChainsawFailure[]): Promise<boolean | undefined> {
  const ref = { apiVersion: 'v1', kind: 'Namespace', name: context.namespace };
  try {
    if (await context.client.get(ref)) return false;
    await context.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: context.namespace } });
    return true;
  } catch (error) {
    failures.push({
      phase: 'setup',
      operation: { type: 'namespace', index: 0, resource: `v1/Namespace/${context.namespace}` },
      reason: `cannot create namespace ${context.namespace}: ${(error as Error).message}`,
    });
    return undefined;
  }
}

async function deleteNamespace(context: TestContext, failures: ChainsawFailure[]): Promise<void> {
  const ref = { apiVersion: 'v1', kind: 'Namespace', name: context.namespace };
  try {
    const deleted = await context.client.delete(ref, { propagationPolicy: context.propagation(undefined) });
    // fastDelete: do not wait for the namespace to go (its objects go with it).
    if (deleted && !context.configuration.fastDelete) {
      const timeout = context.timeout('cleanup', undefined);
      if (!(await waitGone(ref, context, timeout))) throw new Error(`still present ${timeout} ms after its deletion`);
    }
  } catch (error) {
    failures.push({
      phase: 'cleanup',
      operation: { type: 'namespace', index: 0, resource: `v1/Namespace/${context.namespace}` },
      reason: `cleanup of namespace ${context.namespace}: ${(error as Error).message}`,
    });
  }
}
