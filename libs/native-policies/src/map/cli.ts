/**
 * MutatingAdmissionPolicies in the CLI, as Kyverno's CLI evaluates them (`kyverno apply` and
 * `kyverno test`): the resource as a CREATE; without bindings the policy's matchConstraints decide
 * and it runs unbound; with bindings the policy's matchConstraints and then the first binding whose
 * matchResources cover the resource (bindings without matchResources are passed over, as Kyverno's
 * offline matcher does). Lists in ApplyConfigurations are replaced whole (Kyverno's CLI merges
 * without a schema). One rule result per mutation, named after the policy: pass when it changed
 * the object, skip when it had no effect, error when it failed; the patched resource keeps the
 * resource's name and namespace.
 */
import { errorMessage, type EvaluationDeadline, type JsonObject } from '@edict/foundation';
import type { Authorize } from '../cel/round';
import { matchResources } from '../matching/match-resources';
import { DEDUCED_SHAPE } from '../mutation/shape';
import type { AdmissionAttributes } from '../types';
import { cliAttributes, cliNamespaceObject, type CliRuleStatus } from '../vap/cli';
import { collectParams, paramsFromObjects } from '../vap/params';
import { nameOf } from '../vap/spec';
import { compileMutatingAdmissionPolicy, MutatingAdmissionPolicyError } from './compile';
import { invokeMutatingAdmissionPolicy, type MapContext, type MutationOutcome } from './evaluate';
import { readMutatingBinding, readMutatingPolicy, type MutatingBindingSpec } from './spec';

export interface MapCliRule {
  /** The policy's name, as Kyverno names the rule. */
  name: string;
  ruleType: 'Mutation';
  status: CliRuleStatus;
  message: string;
  /** The binding the result comes from (absent when the policy ran unbound). */
  binding?: string;
}

export interface MapCliResult {
  policy: string;
  kind: 'MutatingAdmissionPolicy';
  resource: JsonObject;
  /** Empty when the policy or its bindings do not select the resource. */
  rules: MapCliRule[];
  /** The resource after the policy (set when the policy ran). */
  patchedResource?: JsonObject;
}

export interface MapCliInput {
  policy: JsonObject;
  /** Every binding of the run; those naming other policies are ignored. */
  bindings?: readonly JsonObject[];
  /** The run's parameter objects (paramResources). */
  params?: readonly JsonObject[];
  resource: JsonObject;
  /** The resource's plural name (from discovery); guessed from its kind when absent. */
  resourceName?: string;
  /** Labels of the resource's namespace (the values file's namespaceSelector). */
  namespaceLabels?: Record<string, string>;
  userInfo?: AdmissionAttributes['userInfo'];
  authorize?: Authorize;
  deadline?: EvaluationDeadline;
}

export async function evaluateMutatingPolicyForCli(input: MapCliInput): Promise<MapCliResult> {
  const policyName = nameOf(input.policy);
  const result: MapCliResult = {
    policy: policyName,
    kind: 'MutatingAdmissionPolicy',
    resource: input.resource,
    rules: [],
  };
  const attributes = cliAttributes(input);
  // Matching sees the namespace's labels (the values file); CEL gets the namespace by name only.
  const labelled = cliNamespaceObject(attributes.namespace, input.namespaceLabels);
  const options = { generateNamePrefix: true } as const;
  const spec = readMutatingPolicy(input.policy);
  const matches = (constraints: MutatingBindingSpec['matchResources']) =>
    matchResources(constraints && { ...constraints, matchPolicy: 'Exact' }, attributes, labelled, options).matches;

  const bindings = (input.bindings ?? []).map(readMutatingBinding).filter((b) => b.policyName === policyName);
  let binding: MutatingBindingSpec | undefined;
  if (!matches(spec.matchConstraints)) return result;
  if (bindings.length > 0) {
    binding = bindings.find((candidate) => candidate.matchResources && matches(candidate.matchResources));
    if (!binding) return result;
  }

  const rule = (status: CliRuleStatus, message: string): MapCliRule => ({
    name: policyName,
    ruleType: 'Mutation',
    status,
    message,
    ...(binding ? { binding: binding.name } : {}),
  });
  let compiled;
  try {
    compiled = compileMutatingAdmissionPolicy(input.policy);
  } catch (error) {
    if (!(error instanceof MutatingAdmissionPolicyError)) throw error;
    result.rules.push(rule('error', `compilation error: ${error.message}`));
    return result;
  }
  let params: (JsonObject | null)[] = [null];
  if (binding) {
    try {
      params = await collectParams(
        spec.paramKind,
        binding,
        attributes.namespace,
        paramsFromObjects(input.params ?? []),
      );
    } catch (error) {
      result.rules.push(rule('error', `failed to configure binding: ${errorMessage(error)}`));
      return result;
    }
  }
  const context: MapContext = {
    namespaceObject: attributes.namespace ? { metadata: { name: attributes.namespace } } : null,
    shape: DEDUCED_SHAPE,
    ...(input.authorize ? { authorize: input.authorize } : {}),
    ...(input.deadline ? { deadline: input.deadline } : {}),
  };
  let object: JsonObject | null = input.resource;
  for (const param of params) {
    const { invocation, object: after } = await invokeMutatingAdmissionPolicy(
      compiled,
      binding,
      param,
      { ...attributes, object },
      { resource: attributes.resource, kind: attributes.kind },
      context,
    );
    if (invocation.skipped || invocation.error !== undefined) {
      result.rules.push(rule('skip', 'match conditions not met'));
      continue;
    }
    if (compiled.mutations.length === 0) result.rules.push(rule('pass', 'mutation returned no patchers'));
    for (const outcome of invocation.mutations) result.rules.push(rule(...statusOf(outcome)));
    object = after;
  }
  if (object) result.patchedResource = withIdentity(object, input.resource);
  return result;
}

function statusOf(outcome: MutationOutcome): [CliRuleStatus, string] {
  if (outcome.status === 'error') return ['error', outcome.message ?? ''];
  if (outcome.status === 'unchanged') return ['skip', 'mutation had no effect'];
  return ['pass', ''];
}

/** Kyverno sets the patched resource's name and namespace back to the resource's. */
function withIdentity(object: JsonObject, resource: JsonObject): JsonObject {
  const source = (resource.metadata ?? {}) as JsonObject;
  const metadata = { ...((object.metadata ?? {}) as JsonObject) };
  for (const key of ['name', 'namespace'] as const) {
    if (typeof source[key] === 'string' && source[key] !== '') metadata[key] = source[key];
    else delete metadata[key];
  }
  return { ...object, metadata };
}
