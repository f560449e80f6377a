import {
  compileCelPolicyException,
  compileDeletingPolicy,
  evaluateDeletingPolicy,
  type CelPolicyContext,
  type CompiledCelPolicyException,
  type CompiledDeletingPolicy,
  type DeletingPolicyOutcome,
} from '@edict/cel-policies';
import type { RuleResponse } from '@edict/engine';
import { errorMessage, isObject, type KubeObject } from '@edict/foundation';
import { celPortsFor } from './cel-ports';
import { offlineNamespaceObject, resourceOf } from './cel-resource';
import type { CelEvaluation, CelPolicyResponse } from './cel-responses';
import type { LoadedTest } from './types';

const DELETING_KINDS = new Set(['DeletingPolicy', 'NamespacedDeletingPolicy']);

/**
 * The test's DeletingPolicies and NamespacedDeletingPolicies as Kyverno's CLI runs them: every
 * policy on every resource, one rule named after the policy (type Deletion): `pass` ("resource
 * matched") when the object would be deleted, `fail` ("resource did not match") when it would not
 * (not matched, a condition false, or a PolicyException covering it), `error` with the reason when
 * matching or a condition failed. Context lookups (`resource`, `http`, `globalContext`) read the
 * test's context and cluster resources. A policy that does not compile is an error of the test.
 */
export async function evaluateDeletingPolicies(test: LoadedTest, evaluation: CelEvaluation): Promise<void> {
  if (test.cel.deletingPolicies.length === 0) return;
  const policies: { source: KubeObject; compiled: CompiledDeletingPolicy }[] = [];
  for (const source of test.cel.deletingPolicies) {
    try {
      policies.push({ source, compiled: compileDeletingPolicy(source) });
    } catch (error) {
      evaluation.errors.push(`${source.kind} ${source.metadata.name ?? ''}: ${errorMessage(error)}`);
    }
  }
  if (policies.length === 0) return;
  const context: CelPolicyContext = { ports: celPortsFor(test), exceptions: deletingExceptions(test, evaluation) };
  for (const resource of test.resources) {
    for (const { source, compiled } of policies) {
      let outcome: DeletingPolicyOutcome;
      try {
        outcome = await evaluateDeletingPolicy(
          compiled,
          {
            object: resource,
            resource: resourceOf(resource, test.crdPlurals),
            namespaceObject: offlineNamespaceObject(test, resource.metadata.namespace),
          },
          context,
        );
      } catch (error) {
        outcome = { result: 'error', error: errorMessage(error) };
      }
      evaluation.responses.push({
        kind: compiled.kind,
        policy: source,
        resource,
        response: responseOf(compiled, resource, ruleOf(compiled, outcome)),
      });
    }
  }
}

/** The CEL PolicyExceptions of the test that name a deleting policy (others are the other engines'). */
function deletingExceptions(test: LoadedTest, evaluation: CelEvaluation): CompiledCelPolicyException[] {
  const compiled: CompiledCelPolicyException[] = [];
  for (const exception of test.cel.exceptions) {
    const refs = isObject(exception.spec) && Array.isArray(exception.spec.policyRefs) ? exception.spec.policyRefs : [];
    if (!refs.some((ref) => isObject(ref) && DELETING_KINDS.has(String(ref.kind)))) continue;
    try {
      compiled.push(compileCelPolicyException(exception));
    } catch (error) {
      evaluation.errors.push(`${exception.kind} ${exception.metadata.name ?? ''}: ${errorMessage(error)}`);
    }
  }
  return compiled;
}

function ruleOf(compiled: CompiledDeletingPolicy, outcome: DeletingPolicyOutcome): RuleResponse {
  const rule = { name: compiled.name, type: 'Deletion' as const };
  if (outcome.result === 'delete') return { ...rule, status: 'pass', message: 'resource matched' };
  if (outcome.result === 'error') return { ...rule, status: 'error', message: outcome.error };
  return { ...rule, status: 'fail', message: 'resource did not match' };
}

function responseOf(compiled: CompiledDeletingPolicy, resource: KubeObject, rule: RuleResponse): CelPolicyResponse {
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
    rules: [rule],
    // Deleting policies do not validate: no failure action applies; Audit keeps fail a report result.
    validationFailureAction: 'Audit',
  };
}
