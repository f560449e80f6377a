/**
 * Kubernetes' ValidatingAdmissionPolicies and MutatingAdmissionPolicies on one existing resource, as
 * Kyverno's background scan evaluates them (pkg/admissionpolicy Validate and Mutate, the path with
 * a cluster client): the object as a CREATE by no user, the policy's matchConstraints first; a policy
 * without bindings runs unbound, otherwise every binding whose matchResources cover the object runs
 * (with its params from the cluster) and the last one's result is the policy's.
 *
 * ValidatingAdmissionPolicy: matchConditions not met is a skip; a validation that cannot be
 * evaluated is an error, one that fails is a fail (whatever the binding's validationActions: the
 * report says what the policy finds, not what admission did), else a pass.
 * MutatingAdmissionPolicy: bindings are applied one after the other on the object the previous one
 * left; a fail when applying the policy would still change the object ("mutation is not applied"),
 * else a pass; a mutation that errors gives no result, as in Kyverno.
 *
 * Parameters a binding cannot get (paramRef pointing at nothing with parameterNotFoundAction Deny, a
 * namespaced paramKind on a cluster-scoped object) fail the scan with a message naming the policy and
 * binding (Kyverno returns the error): the resource is scanned again later.
 */
import { deepEqual, errorMessage, type EvaluationDeadline, type JsonObject } from '@edict/foundation';
import {
  collectParams,
  compileMutatingAdmissionPolicy,
  compileValidatingAdmissionPolicy,
  DEDUCED_SHAPE,
  evaluateValidatingAdmissionPolicy,
  invokeMutatingAdmissionPolicy,
  matchResources,
  readMutatingBinding,
  readMutatingPolicy,
  readPolicy,
  type AdmissionAttributes,
  type CompiledMutatingAdmissionPolicy,
  type CompiledValidatingAdmissionPolicy,
  type MatchResources,
  type MutatingBindingSpec,
  type ParamSource,
  type VapCall,
} from '@edict/native-policies';

export type NativeScanStatus = 'pass' | 'fail' | 'error' | 'skip';

/** One policy's result on the resource: Kyverno names the rule after the policy. */
export interface NativeScanOutcome {
  readonly status: NativeScanStatus;
  readonly message: string;
  /** The binding the result comes from; absent when the policy ran unbound. */
  readonly binding?: string;
}

export interface NativeScanInput {
  /** The object as a CREATE request (no user: background scans have none). */
  readonly attributes: AdmissionAttributes;
  /** The object's Namespace as stored (labels for the selectors, the whole object for CEL). */
  readonly namespaceObject: JsonObject | null;
  /** Where bindings' paramRefs are looked up. */
  readonly params?: ParamSource;
  readonly deadline?: EvaluationDeadline;
}

/** A binding as stored (any served version); `spec.policyName` names its policy. */
export type NativeBinding = JsonObject;

/** Kyverno's messages for MutatingAdmissionPolicy results. */
export const MUTATION_NOT_APPLIED = 'mutation is not applied';
export const MUTATION_APPLIED = 'mutation is successfully applied';
export const MATCH_CONDITIONS_NOT_MET = "match conditions aren't met";

/** A binding that cannot run on the resource (its params): the scan of the resource fails. */
export class NativeBindingError extends Error {
  override readonly name = 'NativeBindingError';
}

interface CompileOutcome<T> {
  readonly compiled?: T;
  readonly compileError: string;
}

const compiledValidating = new WeakMap<JsonObject, CompileOutcome<CompiledValidatingAdmissionPolicy>>();
const compiledMutating = new WeakMap<JsonObject, CompileOutcome<CompiledMutatingAdmissionPolicy>>();

/** A policy compiled once per informer object (a new object per version), not once per scanned resource. */
function compiledOnce<T>(
  cache: WeakMap<JsonObject, CompileOutcome<T>>,
  policy: JsonObject,
  compile: (policy: JsonObject) => T,
): CompileOutcome<T> {
  let outcome = cache.get(policy);
  if (!outcome) {
    try {
      outcome = { compiled: compile(policy), compileError: '' };
    } catch (error) {
      outcome = { compileError: errorMessage(error) };
    }
    cache.set(policy, outcome);
  }
  return outcome;
}

export async function scanValidatingAdmissionPolicy(
  policy: JsonObject,
  bindings: readonly NativeBinding[],
  input: NativeScanInput,
): Promise<NativeScanOutcome | undefined> {
  const spec = readPolicy(policy);
  if (!covers(spec.matchConstraints, input)) return undefined;
  const { compiled, compileError } = compiledOnce(compiledValidating, policy, compileValidatingAdmissionPolicy);
  const run = async (binding: NativeBinding | undefined): Promise<NativeScanOutcome | undefined> => {
    const name = binding ? bindingName(binding) : undefined;
    const at = name !== undefined ? { binding: name } : {};
    if (!compiled) return { status: 'error', message: `compilation error: ${compileError}`, ...at };
    // The binding's matchResources were decided here (a binding whose match errs is passed over).
    const unmatched: JsonObject = binding
      ? { ...binding, spec: withoutMatch(specOf(binding)) }
      : { metadata: { name: '' }, spec: { policyName: compiled.name, validationActions: ['Deny'] } };
    const evaluation = await evaluateValidatingAdmissionPolicy(compiled, [unmatched], input.attributes, {
      namespaceObject: input.namespaceObject,
      ...(input.params ? { params: input.params } : {}),
      ...(input.deadline ? { deadline: input.deadline } : {}),
    });
    const result = evaluation.bindings[0];
    if (!result) return undefined;
    if (result.configError !== undefined) {
      throw new NativeBindingError(
        `ValidatingAdmissionPolicy ${compiled.name} with binding ${name ?? ''}: ${result.configError}`,
      );
    }
    // parameterNotFoundAction Allow with no params: the binding has nothing to evaluate.
    if (result.calls.length === 0) return undefined;
    return { ...outcomeOfCalls(result.calls), ...at };
  };
  const policyName = compiled?.name ?? nameOf(policy);
  const own = bindings.filter((binding) => specOf(binding).policyName === policyName);
  if (own.length === 0) return run(undefined);
  let outcome: NativeScanOutcome | undefined;
  for (const binding of own) {
    if (!covers(bindingMatch(binding), input, true)) continue;
    outcome = (await run(binding)) ?? outcome;
  }
  return outcome;
}

export async function scanMutatingAdmissionPolicy(
  policy: JsonObject,
  bindings: readonly NativeBinding[],
  input: NativeScanInput,
): Promise<NativeScanOutcome | undefined> {
  const spec = readMutatingPolicy(policy);
  if (!covers(spec.matchConstraints, input)) return undefined;
  const { compiled, compileError } = compiledOnce(compiledMutating, policy, compileMutatingAdmissionPolicy);
  const policyName = compiled?.name ?? nameOf(policy);
  const own = bindings.filter((binding) => specOf(binding).policyName === policyName);
  if (!compiled) {
    const binding = own.find((candidate) => covers(bindingMatch(candidate), input, true));
    if (own.length > 0 && !binding) return undefined;
    return {
      status: 'error',
      message: `compilation error: ${compileError}`,
      ...(binding ? { binding: bindingName(binding) } : {}),
    };
  }
  if (own.length === 0) {
    const applied = await mutate(compiled, undefined, input.attributes.object, input);
    if (applied.matchError !== undefined) {
      throw new NativeBindingError(`MutatingAdmissionPolicy ${compiled.name}: ${applied.matchError}`);
    }
    return applied.outcome;
  }
  // Each binding applies to what the previous one left; the last one's result is the policy's.
  let object = input.attributes.object;
  let outcome: NativeScanOutcome | undefined;
  for (const raw of own) {
    if (!covers(bindingMatch(raw), input, true)) continue;
    const applied = await mutate(compiled, readMutatingBinding(raw), object, input);
    if (applied.matchError !== undefined) continue;
    outcome = applied.outcome;
    object = applied.object;
  }
  return outcome;
}

interface Applied {
  outcome?: NativeScanOutcome;
  object: JsonObject | null;
  /** The matchConditions could not be evaluated. */
  matchError?: string;
}

async function mutate(
  compiled: CompiledMutatingAdmissionPolicy,
  binding: MutatingBindingSpec | undefined,
  object: JsonObject | null,
  input: NativeScanInput,
): Promise<Applied> {
  const at = binding ? { binding: binding.name } : {};
  let params: (JsonObject | null)[] = [null];
  if (binding) {
    try {
      params = await collectParams(compiled.spec.paramKind, binding, input.attributes.namespace, input.params);
    } catch (error) {
      throw new NativeBindingError(
        `MutatingAdmissionPolicy ${compiled.name} with binding ${binding.name}: failed to configure binding: ${errorMessage(error)}`,
      );
    }
    if (params.length === 0) return { object };
  }
  const { attributes } = input;
  const before = object;
  let current = object;
  let skipped = 0;
  for (const param of params) {
    const { invocation, object: after } = await invokeMutatingAdmissionPolicy(
      compiled,
      binding,
      param,
      { ...attributes, object: current },
      { resource: attributes.resource, kind: attributes.kind },
      {
        namespaceObject: input.namespaceObject,
        // Kyverno merges ApplyConfigurations with a deduced type converter (lists replaced whole).
        shape: DEDUCED_SHAPE,
        ...(input.deadline ? { deadline: input.deadline } : {}),
      },
    );
    if (invocation.error !== undefined) return { object: before, matchError: invocation.error };
    if (invocation.skipped) {
      skipped++;
      continue;
    }
    // A patch that fails leaves Kyverno's response without a result.
    if (invocation.mutations.some((mutation) => mutation.status === 'error')) return { object: before };
    current = after;
  }
  if (skipped === params.length) {
    return { outcome: { status: 'skip', message: MATCH_CONDITIONS_NOT_MET, ...at }, object: before };
  }
  const unchanged = deepEqual(before ?? undefined, current ?? undefined);
  return {
    outcome: unchanged
      ? { status: 'pass', message: MUTATION_APPLIED, ...at }
      : { status: 'fail', message: MUTATION_NOT_APPLIED, ...at },
    object: current,
  };
}

/** Kyverno's reading of the validator's decisions: the first error, else the first denial, decides. */
function outcomeOfCalls(calls: readonly VapCall[]): { status: NativeScanStatus; message: string } {
  if (calls.every((call) => call.decisions.length === 0 && call.auditAnnotations.length === 0)) {
    return { status: 'skip', message: MATCH_CONDITIONS_NOT_MET };
  }
  for (const call of calls) {
    for (const decision of call.decisions) {
      if (decision.evaluation === 'Error') return { status: 'error', message: decision.message };
      if (decision.action === 'Deny') return { status: 'fail', message: decision.message };
    }
  }
  return { status: 'pass', message: '' };
}

/**
 * Whether `constraints` cover the request. A policy without matchConstraints covers nothing; a
 * binding without matchResources covers everything its policy does; a match that errs does not cover.
 */
function covers(constraints: MatchResources | undefined, input: NativeScanInput, orAll = false): boolean {
  if (!constraints) return orAll;
  return matchResources(constraints, input.attributes, input.namespaceObject).matches;
}

function withoutMatch(spec: JsonObject): JsonObject {
  const { matchResources: _decided, ...rest } = spec;
  return rest;
}

function specOf(binding: JsonObject): JsonObject {
  return binding.spec && typeof binding.spec === 'object' && !Array.isArray(binding.spec)
    ? (binding.spec as JsonObject)
    : {};
}

function bindingMatch(binding: NativeBinding): MatchResources | undefined {
  const match = specOf(binding).matchResources;
  return match && typeof match === 'object' && !Array.isArray(match) ? (match as MatchResources) : undefined;
}

function bindingName(binding: NativeBinding): string {
  return nameOf(binding);
}

function nameOf(object: JsonObject): string {
  const metadata = object.metadata as { name?: unknown } | undefined;
  return typeof metadata?.name === 'string' ? metadata.name : '';
}
