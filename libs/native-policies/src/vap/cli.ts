/**
 * ValidatingAdmissionPolicies in the CLI, as Kyverno's CLI evaluates them (`kyverno apply` and
 * `kyverno test` with paramResources): the resource as a CREATE request; without bindings the
 * policy's matchConstraints decide and it runs unbound; with bindings each binding whose
 * matchResources cover the resource gives one rule result (Kyverno's offline path does not look
 * at the policy's matchConstraints then); params are taken from the given objects. A result's
 * rules are named after the policy; no rules means the resource was not selected (a skip).
 */
import { pluralOfKind, type EvaluationDeadline, type JsonObject } from '@edict/foundation';
import type { Authorize } from '../cel/round';
import { matchResources } from '../matching/match-resources';
import type { AdmissionAttributes, AdmissionOperation } from '../types';
import {
  compileValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyError,
  type CompiledValidatingAdmissionPolicy,
} from './compile';
import { evaluateBinding, type VapCall } from './evaluate';
import { paramsFromObjects } from './params';
import { nameOf, readBinding, readPolicy, type BindingSpec, type ValidationAction } from './spec';

export type CliRuleStatus = 'pass' | 'fail' | 'error' | 'skip';

/** One rule response in Kyverno's shape (RuleResponse of a ValidatingAdmissionPolicy). */
export interface VapCliRule {
  /** The policy's name, as Kyverno names the rule. */
  name: string;
  ruleType: 'Validation';
  status: CliRuleStatus;
  message: string;
  /** The binding the result comes from (absent when the policy ran unbound). */
  binding?: string;
  validationActions?: ValidationAction[];
}

/** Kyverno's engine response for one policy and one resource. */
export interface VapCliResult {
  policy: string;
  kind: 'ValidatingAdmissionPolicy';
  resource: JsonObject;
  /** Empty when the policy or its bindings do not select the resource. */
  rules: VapCliRule[];
}

export interface VapCliInput {
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
  operation?: AdmissionOperation;
  oldResource?: JsonObject | null;
  /** Answers `authorizer` checks; without it every check is an errored decision. */
  authorize?: Authorize;
  deadline?: EvaluationDeadline;
}

export async function evaluateForCli(input: VapCliInput): Promise<VapCliResult> {
  const policyName = nameOf(input.policy);
  const result: VapCliResult = {
    policy: policyName,
    kind: 'ValidatingAdmissionPolicy',
    resource: input.resource,
    rules: [],
  };
  const attributes = cliAttributes(input);
  const namespaceObject = cliNamespaceObject(attributes.namespace, input.namespaceLabels);
  const options = { generateNamePrefix: true } as const;
  const bindings = (input.bindings ?? []).map(readBinding).filter((b) => b.policyName === policyName);
  let compiled: CompiledValidatingAdmissionPolicy | undefined;
  let compileError = '';
  try {
    compiled = compileValidatingAdmissionPolicy(input.policy);
  } catch (error) {
    if (!(error instanceof ValidatingAdmissionPolicyError)) throw error;
    compileError = error.message;
  }

  const targets: (BindingSpec | undefined)[] = [];
  if (bindings.length === 0) {
    const constraints = readPolicy(input.policy).matchConstraints;
    const decision = matchResources(
      constraints && { ...constraints, matchPolicy: 'Exact' },
      attributes,
      namespaceObject,
      options,
    );
    if (!decision.matches) return result;
    targets.push(undefined);
  } else {
    for (const binding of bindings) {
      if (binding.matchResources) {
        const match = { ...binding.matchResources, matchPolicy: 'Exact' as const };
        if (!matchResources(match, attributes, namespaceObject, options).matches) continue;
      }
      targets.push(binding);
    }
  }
  for (const binding of targets) {
    const rule: VapCliRule = { name: policyName, ruleType: 'Validation', status: 'pass', message: '' };
    if (binding) {
      rule.binding = binding.name;
      rule.validationActions = binding.validationActions;
    }
    if (!compiled) {
      result.rules.push({ ...rule, status: 'error', message: `compilation error: ${compileError}` });
      continue;
    }
    result.rules.push({ ...rule, ...(await ruleOutcome(compiled, binding, attributes, namespaceObject, input)) });
  }
  return result;
}

async function ruleOutcome(
  compiled: CompiledValidatingAdmissionPolicy,
  binding: BindingSpec | undefined,
  attributes: AdmissionAttributes,
  namespaceObject: JsonObject | null,
  input: VapCliInput,
): Promise<{ status: CliRuleStatus; message: string }> {
  // Unbound (Kyverno runs a policy without bindings on its own): no params, no binding match.
  const spec: BindingSpec = binding
    ? { ...binding, matchResources: undefined }
    : { name: '', policyName: compiled.name, validationActions: ['Deny'] };
  const evaluation = await evaluateBinding(
    compiled,
    spec,
    attributes,
    { resource: attributes.resource, kind: attributes.kind },
    namespaceObject,
    {
      params: paramsFromObjects(input.params ?? []),
      ...(input.authorize ? { authorize: input.authorize } : {}),
      ...(input.deadline ? { deadline: input.deadline } : {}),
    },
  );
  if (!evaluation) return { status: 'skip', message: "match conditions aren't met" };
  if (evaluation.configError !== undefined) return { status: 'error', message: evaluation.configError };
  return outcomeOf(evaluation.calls);
}

/** Kyverno's reading of the validator's decisions: the first error or denial decides. */
function outcomeOf(calls: readonly VapCall[]): { status: CliRuleStatus; message: string } {
  if (calls.length === 0) return { status: 'skip', message: 'no params found' };
  if (calls.every((call) => call.decisions.length === 0 && call.auditAnnotations.length === 0)) {
    return { status: 'skip', message: "match conditions aren't met" };
  }
  for (const call of calls) {
    for (const decision of call.decisions) {
      if (decision.evaluation === 'Error') return { status: 'error', message: decision.message };
      if (decision.action === 'Deny') return { status: 'fail', message: decision.message };
    }
  }
  return { status: 'pass', message: '' };
}

/** The CLI's request for a resource: a CREATE by the given user, named as the resource is. */
/** The request's Namespace as the CLI knows it: its name and the values file's labels. */
export function cliNamespaceObject(namespace: string | undefined, labels: Record<string, string> | undefined) {
  return namespace
    ? { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, ...(labels ? { labels } : {}) } }
    : null;
}

export function cliAttributes(
  input: Pick<VapCliInput, 'resource' | 'resourceName' | 'userInfo' | 'operation' | 'oldResource'>,
): AdmissionAttributes {
  const { resource } = input;
  const apiVersion = typeof resource.apiVersion === 'string' ? resource.apiVersion : '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const kind = typeof resource.kind === 'string' ? resource.kind : '';
  const metadata = (resource.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  const operation = input.operation ?? 'CREATE';
  return {
    operation,
    kind: { group, version, kind },
    resource: { group, version, resource: input.resourceName ?? pluralOfKind(kind) },
    subresource: '',
    name: typeof metadata.name === 'string' ? metadata.name : '',
    // Kyverno's CLI takes the namespace from the resource: none for a Namespace object.
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
    object: operation === 'DELETE' ? null : resource,
    oldObject: input.oldResource ?? (operation === 'DELETE' ? resource : null),
    ...(input.userInfo ? { userInfo: input.userInfo } : {}),
  };
}

/** Every ValidatingAdmissionPolicy among `policies` on one resource, one result per policy, in order. */
export async function evaluatePoliciesForCli(
  input: Omit<VapCliInput, 'policy'> & { policies: readonly JsonObject[] },
): Promise<VapCliResult[]> {
  const { policies, ...rest } = input;
  const results: VapCliResult[] = [];
  for (const policy of policies) results.push(await evaluateForCli({ ...rest, policy }));
  return results;
}
