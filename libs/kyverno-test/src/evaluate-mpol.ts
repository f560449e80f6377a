import {
  compileCelPolicyException,
  compileMutatingPolicy,
  evaluateMutatingPolicy,
  evaluateMutatingPolicyOnTarget,
  mutateExistingTargets,
  type CelPolicyContext,
  type CompiledCelPolicyException,
  type CompiledMutatingPolicy,
  type MutatingPolicyResult,
} from '@edict/cel-policies';
import type { Operation, PolicyResponse } from '@edict/engine';
import { errorMessage, isObject, type KubeObject } from '@edict/foundation';
import { celPortsFor } from './cel-ports';
import { offlineNamespaceObject, resourceOf } from './cel-resource';
import type { CelEvaluatedResponse, CelEvaluation, CelPolicyResponse } from './cel-responses';
import { buildRequest, findSubresource, type RequestInputs } from './request-builder';
import type { LoadedTest } from './types';

/**
 * Runs the test's MutatingPolicies as Kyverno's CLI does: every policy on every resource (with the
 * values' operation, and once more per `results[].operation`), each answering with its patched
 * resource; mutate-existing policies instead patch the existing objects a trigger selects (the
 * test's `targetResources`, or its resources when it gives none), each patched target carried by
 * the trigger's response as Kyverno's CLI reports it.
 */
export async function evaluateMutatingPolicies(
  test: LoadedTest,
  inputs: RequestInputs,
  overrides: readonly Operation[],
  evaluation: CelEvaluation,
): Promise<void> {
  if (test.cel.mutatingPolicies.length === 0) return;
  const policies: { source: KubeObject; compiled: CompiledMutatingPolicy }[] = [];
  for (const source of test.cel.mutatingPolicies) {
    try {
      policies.push({ source, compiled: compileMutatingPolicy(source) });
    } catch (error) {
      evaluation.errors.push(`${source.kind} ${source.metadata.name ?? ''}: ${errorMessage(error)}`);
    }
  }
  if (policies.length === 0) return;
  const context: CelPolicyContext = {
    ports: celPortsFor(test, { targets: true }),
    exceptions: exceptionsOf(test, evaluation),
  };
  const failed = (compiled: CompiledMutatingPolicy, resource: KubeObject, error: unknown) =>
    evaluation.errors.push(
      `${compiled.kind} ${compiled.name} on ${resource.kind}/${resource.metadata.name ?? ''}: ${errorMessage(error)}`,
    );
  const push = (
    entry: (typeof policies)[number],
    resource: KubeObject,
    response: PolicyResponse,
    extra: Partial<CelEvaluatedResponse>,
  ) => {
    const celResponse: CelPolicyResponse = { ...response, policy: { ...response.policy, kind: entry.compiled.kind } };
    evaluation.responses.push({
      kind: entry.compiled.kind,
      policy: entry.source,
      resource,
      response: celResponse,
      ...extra,
    });
  };
  const candidates = (test.targetResources.length > 0 ? test.targetResources : test.resources).map((object) => ({
    object,
    resource: resourceOf(object, test.crdPlurals),
  }));

  for (const operationOverride of [undefined, ...overrides]) {
    for (const resource of test.resources) {
      for (const entry of policies) {
        const request = buildRequest(entry.compiled.name, resource, inputs, operationOverride);
        const input = {
          request,
          resource: requestResource(resource, test, inputs),
          namespaceObject: offlineNamespaceObject(test, resource.metadata.namespace),
        };
        if (entry.compiled.mutateExisting) {
          try {
            const selection = await mutateExistingTargets(entry.compiled, input, candidates, context);
            if ('error' in selection) {
              failed(entry.compiled, resource, selection.error);
              continue;
            }
            for (const target of selection.targets) {
              const result = await evaluateMutatingPolicyOnTarget(entry.compiled, target, input, {
                ...context,
                targetNamespaceObject: offlineNamespaceObject(test, target.metadata.namespace),
              });
              if (!result) continue;
              push(entry, resource, withPatchedTarget(result, target), {
                ...(operationOverride ? { operationOverride } : {}),
              });
            }
          } catch (error) {
            failed(entry.compiled, resource, error);
          }
          continue;
        }
        try {
          const result = await evaluateMutatingPolicy(entry.compiled, input, context);
          if (!result) {
            if (!selectsByLabels(entry.compiled)) {
              push(entry, resource, unmatched(entry.compiled, resource), {
                ...(operationOverride ? { operationOverride } : {}),
              });
            }
            continue;
          }
          push(entry, resource, result.response, {
            ...(operationOverride ? { operationOverride } : {}),
            stage: 'mutate',
            patchedResource: result.patchedResource ?? resource,
          });
        } catch (error) {
          failed(entry.compiled, resource, error);
        }
      }
    }
  }
}

/** The test's CEL PolicyExceptions; their compile errors are reported once, here when no validating policy reports them. */
function exceptionsOf(test: LoadedTest, evaluation: CelEvaluation): CompiledCelPolicyException[] {
  const reported = test.cel.validatingPolicies.length > 0 || test.cel.imageValidatingPolicies.length > 0;
  const out: CompiledCelPolicyException[] = [];
  for (const source of test.cel.exceptions) {
    try {
      out.push(compileCelPolicyException(source));
    } catch (error) {
      if (!reported) evaluation.errors.push(`${source.kind} ${source.metadata.name ?? ''}: ${errorMessage(error)}`);
    }
  }
  return out;
}

/** A target's result as the trigger's response: a passing rule names the patched target. */
function withPatchedTarget(result: MutatingPolicyResult, target: KubeObject): PolicyResponse {
  const rules = result.response.rules.map((rule) => {
    if (rule.status !== 'pass') return rule;
    const { patchedResource: _patched, ...rest } = rule;
    return { ...rest, patchedTargets: [result.patchedResource ?? target] };
  });
  return { ...result.response, rules };
}

/** The request's resource: a subresource's parent resource (`pods` for a `pods/binding` Binding) as Kyverno maps it. */
function requestResource(resource: KubeObject, test: LoadedTest, inputs: RequestInputs) {
  const mapping = findSubresource(resource, inputs.subresources ?? []);
  if (!mapping) return resourceOf(resource, test.crdPlurals);
  const [plural = ''] = mapping.subresource.name.split('/');
  return { group: mapping.parent.group, version: mapping.parent.version, resource: plural };
}

/** Kyverno's CLI leaves out the response of an unmatched policy that selects namespaces or objects by labels. */
function selectsByLabels(compiled: CompiledMutatingPolicy): boolean {
  const constraints = compiled.matchConstraints;
  return isObject(constraints.namespaceSelector) || isObject(constraints.objectSelector);
}

function unmatched(compiled: CompiledMutatingPolicy, resource: KubeObject): PolicyResponse {
  return {
    policy: {
      name: compiled.name,
      kind: compiled.kind,
      ...(compiled.namespace ? { namespace: compiled.namespace } : {}),
    },
    resource: {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      name: resource.metadata.name ?? '',
      ...(resource.metadata.namespace ? { namespace: resource.metadata.namespace } : {}),
    },
    rules: [],
    validationFailureAction: 'Audit',
  };
}
