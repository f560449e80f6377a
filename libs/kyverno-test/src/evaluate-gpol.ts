import {
  compileCelPolicyException,
  compileGeneratingPolicy,
  evaluateGeneratingPolicy,
  type CompiledCelPolicyException,
  type CompiledGeneratingPolicy,
  type GeneratingPolicyResult,
} from '@edict/cel-policies';
import { errorMessage, type KubeObject } from '@edict/foundation';
import { celPortsFor } from './cel-ports';
import { offlineNamespaceObject, resourceOf } from './cel-resource';
import type { CelEvaluation, CelPolicyResponse } from './evaluate-cel';
import { buildRequest, type RequestInputs } from './request-builder';
import type { LoadedTest } from './types';

/**
 * The test's GeneratingPolicies as Kyverno's CLI runs them: every policy on every resource as a
 * CREATE (whatever the values say), objects recorded rather than created (no labels; uid,
 * annotations and server fields dropped), sources read from the Context file, the cluster
 * resources and the results' cloneSourceResource. A policy not matching a resource answers
 * nothing for it; one that matches answers with one Generation rule carrying the generated objects.
 */
export async function evaluateGeneratingPolicies(
  test: LoadedTest,
  inputs: RequestInputs,
  evaluation: CelEvaluation,
): Promise<void> {
  if (test.cel.generatingPolicies.length === 0) return;
  const policies: { source: KubeObject; compiled: CompiledGeneratingPolicy }[] = [];
  for (const source of test.cel.generatingPolicies) {
    try {
      policies.push({ source, compiled: compileGeneratingPolicy(source) });
    } catch (error) {
      evaluation.errors.push(`${source.kind} ${source.metadata.name ?? ''}: ${errorMessage(error)}`);
    }
  }
  if (policies.length === 0) return;
  const exceptions: CompiledCelPolicyException[] = [];
  for (const exception of test.cel.exceptions) {
    try {
      exceptions.push(compileCelPolicyException(exception));
    } catch {
      // The validating path reports an exception that does not compile; reported once is enough.
    }
  }
  const context = { ports: celPortsFor(test, test.cloneSources), exceptions, mode: 'cli' as const };
  for (const resource of test.resources) {
    for (const { source, compiled } of policies) {
      const request = buildRequest(compiled.name, resource, inputs, 'CREATE');
      const input = {
        request,
        resource: resourceOf(resource, test.crdPlurals),
        namespaceObject: offlineNamespaceObject(test, resource.metadata.namespace),
      };
      try {
        const result = await evaluateGeneratingPolicy(compiled, input, context);
        if (!result) continue;
        evaluation.responses.push({
          kind: compiled.kind,
          policy: source,
          resource,
          response: responseOf(result, resource),
        });
      } catch (error) {
        evaluation.errors.push(
          `${compiled.kind} ${compiled.name} on ${resource.kind}/${resource.metadata.name ?? ''}: ${errorMessage(error)}`,
        );
      }
    }
  }
}

function responseOf(result: GeneratingPolicyResult, resource: KubeObject): CelPolicyResponse {
  return {
    policy: result.policy,
    resource: {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      name: resource.metadata.name ?? '',
      ...(resource.metadata.namespace ? { namespace: resource.metadata.namespace } : {}),
    },
    rules: [result.rule],
    validationFailureAction: 'Audit',
  };
}
