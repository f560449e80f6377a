import {
  compileCelPolicyException,
  compileImageValidatingPolicy,
  compileValidatingPolicy,
  evaluateImageValidatingPolicies,
  evaluateValidatingPolicy,
  type CelPolicyContext,
  type CompiledCelPolicyException,
  type CompiledImageValidatingPolicy,
  type CompiledValidatingPolicy,
  type IvpolPorts,
} from '@edict/cel-policies';
import type { Operation, PolicyResponse } from '@edict/engine';
import { evaluateForCli } from '@edict/native-policies';
import { errorMessage, isObject, type JsonValue, type KubeObject } from '@edict/foundation';
import { celPortsFor } from './cel-ports';
import { evaluateDeletingPolicies } from './evaluate-dpol';
import { evaluateGeneratingPolicies } from './evaluate-gpol';
import { evaluateMutatingPolicies } from './evaluate-mpol';
import { evaluateMutatingAdmissionPolicies } from './evaluate-map';
import { offlineNamespaceObject, payloadObject, resourceOf } from './cel-resource';
import { buildRequest, type RequestInputs } from './request-builder';
import type { LoadedTest } from './types';
import type { CelEvaluatedResponse, CelEvaluation, CelPolicyResponse } from './cel-responses';

export type { CelEvaluatedResponse, CelEvaluation, CelPolicyKind, CelPolicyResponse } from './cel-responses';

/**
 * Runs the test's ValidatingPolicies as Kyverno's CLI does: Kubernetes-mode policies on every
 * resource (with the values' operation and namespace, and once more per `results[].operation`),
 * JSON-mode policies on every resource as plain JSON and on every JSON payload. A policy that does
 * not apply to a resource gives no response when it selects by labels, and an empty one otherwise
 * (Kyverno's CLI then lists the resource as excluded). Policies that do not compile, and kinds Edict
 * does not run yet, are errors of the test.
 */
export async function evaluateCelPolicies(
  test: LoadedTest,
  inputs: RequestInputs,
  overrides: readonly Operation[],
  images?: IvpolPorts,
): Promise<CelEvaluation> {
  const evaluation: CelEvaluation = { responses: [], errors: [] };
  const notEvaluatedYet = test.cel.unsupported;
  for (const unsupported of notEvaluatedYet) {
    evaluation.errors.push(
      `${unsupported.kind} ${unsupported.metadata.name ?? ''}: this kind of policy is not evaluated by Edict yet`,
    );
  }
  await evaluateAdmissionPolicies(test, evaluation);
  await evaluateGeneratingPolicies(test, inputs, evaluation);
  await evaluateMutatingAdmissionPolicies(test, evaluation);
  await evaluateMutatingPolicies(test, inputs, overrides, evaluation);
  await evaluateDeletingPolicies(test, evaluation);
  const policies = compileEach(test.cel.validatingPolicies, compileValidatingPolicy, evaluation);
  const imagePolicies = compileEach(test.cel.imageValidatingPolicies, compileImageValidatingPolicy, evaluation);
  if (policies.length === 0 && imagePolicies.length === 0) return evaluation;
  const exceptions = compileEach(test.cel.exceptions, compileCelPolicyException, evaluation).map((e) => e.compiled);
  const context: CelPolicyContext = { ports: celPortsFor(test), exceptions };
  await evaluateImagePolicies(test, inputs, overrides, imagePolicies, { ...context, exceptions }, images, evaluation);
  const kubernetes = policies.filter(({ compiled }) => compiled.mode !== 'JSON');
  const json = policies.filter(({ compiled }) => compiled.mode === 'JSON');
  const run = async (
    entry: Compiled<CompiledValidatingPolicy>,
    trigger: Omit<CelEvaluatedResponse, 'kind' | 'policy' | 'response'>,
    evaluate: () => Promise<PolicyResponse | undefined>,
    emptyWhenUnmatched: boolean,
  ) => {
    try {
      const response = await evaluate();
      const answered = response ?? (emptyWhenUnmatched ? unmatched(entry.compiled, trigger.resource) : undefined);
      if (!answered) return;
      const celResponse: CelPolicyResponse = { ...answered, policy: { ...answered.policy, kind: entry.compiled.kind } };
      evaluation.responses.push({ kind: entry.compiled.kind, policy: entry.source, response: celResponse, ...trigger });
    } catch (error) {
      evaluation.errors.push(
        `${entry.compiled.kind} ${entry.compiled.name} on ${trigger.resource.kind}/${trigger.resource.metadata.name ?? ''}: ${errorMessage(error)}`,
      );
    }
  };
  for (const operationOverride of [undefined, ...overrides]) {
    for (const resource of test.resources) {
      for (const entry of kubernetes) {
        const request = buildRequest(entry.compiled.name, resource, inputs, operationOverride);
        const input = {
          request,
          resource: resourceOf(resource, test.crdPlurals),
          namespaceObject: offlineNamespaceObject(test, resource.metadata.namespace),
        };
        await run(
          entry,
          { resource, operationOverride },
          () => evaluateValidatingPolicy(entry.compiled, input, context),
          !selectsByLabels(entry.compiled),
        );
      }
      if (operationOverride !== undefined) continue;
      for (const entry of json) {
        const input = {
          request: { operation: 'CREATE' as const },
          resource: resourceOf(resource, test.crdPlurals),
          jsonPayload: resource as JsonValue,
        };
        await run(entry, { resource }, () => evaluateValidatingPolicy(entry.compiled, input, context), false);
      }
    }
  }
  for (const payload of test.jsonPayloads) {
    const resource = payloadObject(payload.value, payload.file);
    for (const entry of json) {
      const input = {
        request: { operation: 'CREATE' as const },
        resource: { group: '', version: '', resource: '' },
        jsonPayload: payload.value,
      };
      await run(
        entry,
        { resource, payloadFile: payload.file },
        () => evaluateValidatingPolicy(entry.compiled, input, context),
        true,
      );
    }
  }
  return evaluation;
}

/**
 * ImageValidatingPolicies as Kyverno's CLI runs them: every Kubernetes-mode policy on every resource
 * (with the values' operation, and once more per `results[].operation`), all of one resource's
 * policies together so `required` sees what each verified; JSON-mode ones on the JSON payloads.
 * Registry reads go through `images` (the CLI's `--registry`); without it a verification fails.
 */
async function evaluateImagePolicies(
  test: LoadedTest,
  inputs: RequestInputs,
  overrides: readonly Operation[],
  policies: readonly Compiled<CompiledImageValidatingPolicy>[],
  context: CelPolicyContext & { exceptions: readonly CompiledCelPolicyException[] },
  images: IvpolPorts | undefined,
  evaluation: CelEvaluation,
): Promise<void> {
  if (policies.length === 0) return;
  const imageContext = { ...context, ...(images ? { images } : {}) };
  const record = (
    entries: readonly Compiled<CompiledImageValidatingPolicy>[],
    trigger: Omit<CelEvaluatedResponse, 'kind' | 'policy' | 'response'>,
    outcomes: readonly { response: PolicyResponse | undefined }[],
  ) => {
    entries.forEach((entry, i) => {
      const answered =
        outcomes[i]?.response ??
        (selectsByLabels(entry.compiled) ? undefined : unmatched(entry.compiled, trigger.resource));
      if (!answered) return;
      const response: CelPolicyResponse = { ...answered, policy: { ...answered.policy, kind: entry.compiled.kind } };
      evaluation.responses.push({ kind: entry.compiled.kind, policy: entry.source, response, ...trigger });
    });
  };
  const failed = (trigger: KubeObject, error: unknown) =>
    evaluation.errors.push(
      `ImageValidatingPolicies on ${trigger.kind}/${trigger.metadata.name ?? ''}: ${errorMessage(error)}`,
    );
  const kubernetes = policies.filter(({ compiled }) => compiled.mode !== 'JSON');
  const json = policies.filter(({ compiled }) => compiled.mode === 'JSON');
  for (const operationOverride of [undefined, ...overrides]) {
    for (const resource of test.resources) {
      if (kubernetes.length === 0) break;
      const request = buildRequest(kubernetes[0]!.compiled.name, resource, inputs, operationOverride);
      const input = {
        request,
        resource: resourceOf(resource, test.crdPlurals),
        namespaceObject: offlineNamespaceObject(test, resource.metadata.namespace),
      };
      try {
        const outcomes = await evaluateImageValidatingPolicies(
          kubernetes.map((entry) => entry.compiled),
          input,
          imageContext,
        );
        record(kubernetes, { resource, operationOverride }, outcomes);
      } catch (error) {
        failed(resource, error);
      }
    }
  }
  for (const payload of json.length > 0 ? test.jsonPayloads : []) {
    const resource = payloadObject(payload.value, payload.file);
    const input = {
      request: { operation: 'CREATE' as const },
      resource: { group: '', version: '', resource: '' },
      jsonPayload: payload.value,
    };
    try {
      const outcomes = await evaluateImageValidatingPolicies(
        json.map((entry) => entry.compiled),
        input,
        imageContext,
      );
      record(json, { resource, payloadFile: payload.file }, outcomes);
    } catch (error) {
      failed(resource, error);
    }
  }
}

/**
 * ValidatingAdmissionPolicies with their bindings and the test's params, on every resource as a
 * CREATE, as Kyverno's CLI runs them; a policy selecting nothing answers with no rule.
 */
async function evaluateAdmissionPolicies(test: LoadedTest, evaluation: CelEvaluation): Promise<void> {
  const policies = test.cel.validatingAdmissionPolicies;
  if (policies.length === 0) return;
  if (test.exceptions.length > 0) {
    evaluation.errors.push('use of exceptions with ValidatingAdmissionPolicies is not supported');
    return;
  }
  for (const resource of test.resources) {
    for (const policy of policies) {
      try {
        const result = await evaluateForCli({
          policy,
          bindings: test.cel.validatingAdmissionPolicyBindings,
          params: test.params,
          resource,
          resourceName: resourceOf(resource, test.crdPlurals).resource,
          ...(resource.metadata.namespace && test.values.namespaceLabels[resource.metadata.namespace]
            ? { namespaceLabels: test.values.namespaceLabels[resource.metadata.namespace] }
            : {}),
          ...(test.user?.userInfo ? { userInfo: test.user.userInfo } : {}),
        });
        evaluation.responses.push({
          kind: 'ValidatingAdmissionPolicy',
          policy,
          resource,
          response: {
            policy: { name: result.policy, kind: 'ValidatingAdmissionPolicy' },
            resource: responseResource(resource),
            rules: result.rules.map((rule) => ({
              name: rule.name,
              type: 'Validation',
              status: rule.status,
              message: rule.message,
            })),
            validationFailureAction: 'Enforce',
          },
        });
      } catch (error) {
        evaluation.errors.push(
          `ValidatingAdmissionPolicy ${policy.metadata.name ?? ''} on ${resource.kind}/${resource.metadata.name ?? ''}: ${errorMessage(error)}`,
        );
      }
    }
  }
}

function responseResource(resource: KubeObject): PolicyResponse['resource'] {
  return {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: resource.metadata.name ?? '',
    ...(resource.metadata.namespace ? { namespace: resource.metadata.namespace } : {}),
  };
}

interface Compiled<T> {
  source: KubeObject;
  compiled: T;
}

function compileEach<T>(
  sources: readonly KubeObject[],
  compile: (source: KubeObject) => T,
  evaluation: CelEvaluation,
): Compiled<T>[] {
  const out: Compiled<T>[] = [];
  for (const source of sources) {
    try {
      out.push({ source, compiled: compile(source) });
    } catch (error) {
      evaluation.errors.push(`${source.kind} ${source.metadata.name ?? ''}: ${errorMessage(error)}`);
    }
  }
  return out;
}

/** Kyverno's CLI leaves out the response of an unmatched policy that selects namespaces or objects by labels. */
function selectsByLabels(compiled: CompiledValidatingPolicy | CompiledImageValidatingPolicy): boolean {
  const constraints = compiled.matchConstraints;
  return isObject(constraints.namespaceSelector) || isObject(constraints.objectSelector);
}

function unmatched(
  compiled: CompiledValidatingPolicy | CompiledImageValidatingPolicy,
  resource: KubeObject,
): CelPolicyResponse {
  return {
    policy: {
      name: compiled.name,
      kind: compiled.kind,
      ...(compiled.namespace ? { namespace: compiled.namespace } : {}),
    },
    resource: responseResource(resource),
    rules: [],
    validationFailureAction: compiled.validationActions.includes('Deny') ? 'Enforce' : 'Audit',
    validationActions: compiled.validationActions,
  };
}
