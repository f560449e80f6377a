/**
 * The policy validation webhook's answer for the policies.kyverno.io kinds, as Kyverno's: a
 * ValidatingPolicy, an ImageValidatingPolicy (or their Namespaced forms), or a CEL PolicyException, whose CEL does not
 * compile or type-check (or whose spec breaks a rule Kyverno checks in code) is refused. Each
 * problem is `field: message` (the compiler's message, naming the expression's field) and comes
 * back as a warning too; the denial names the first one alone, or all of them as `[a, b]` (Go's
 * aggregated field errors). An exception outside the exception namespaces is admitted with a
 * warning: it is stored but never used, as classic PolicyExceptions.
 */
import { allow, deny, type AdmissionDecision } from '@edict/admission';
import {
  celPolicyExceptionErrors,
  imageValidatingPolicyErrors,
  isCelPolicyException,
  isImageValidatingPolicy,
  isValidatingPolicy,
  validatingPolicyErrors,
  type PolicyFieldError,
} from '@edict/cel-policies';
import { errorMessage, wildcardMatch, type KubeObject } from '@edict/foundation';

/** Whether the object is one of the policies.kyverno.io kinds this validation judges. */
export function isCelPolicyKind(object: { apiVersion?: unknown; kind?: unknown }): boolean {
  const header = { apiVersion: String(object.apiVersion ?? ''), kind: String(object.kind ?? '') };
  return isValidatingPolicy(header) || isImageValidatingPolicy(header) || isCelPolicyException(header);
}

export interface CelPolicyValidationOptions {
  /** Namespaces exceptions are used from (wildcards; empty: exceptions are off). */
  readonly exceptionNamespaces: readonly string[];
  /** The error lists, injectable for specs (default: @edict/cel-policies'). */
  readonly policyErrors?: (policy: KubeObject) => PolicyFieldError[];
  readonly exceptionErrors?: (exception: KubeObject) => PolicyFieldError[];
  readonly imagePolicyErrors?: (policy: KubeObject) => PolicyFieldError[];
}

/** The decision for one policies.kyverno.io object (the CRD schema is checked before this). */
export function celPolicyValidation(object: KubeObject, options: CelPolicyValidationOptions): AdmissionDecision {
  const exception = isCelPolicyException(object);
  const errorsOf = exception
    ? (options.exceptionErrors ?? celPolicyExceptionErrors)
    : isImageValidatingPolicy(object)
      ? (options.imagePolicyErrors ?? imageValidatingPolicyErrors)
      : (options.policyErrors ?? validatingPolicyErrors);
  let errors: PolicyFieldError[];
  try {
    errors = errorsOf(object);
  } catch (error) {
    // A checker that fails says nothing about the policy: refuse rather than admit it unchecked.
    errors = [{ field: 'spec', message: `the policy could not be checked: ${errorMessage(error)}` }];
  }
  const problems = errors.map(describe);
  const warnings = [...problems];
  if (exception) warnings.push(...namespaceWarnings(object, options.exceptionNamespaces));
  if (problems.length === 0) return allow(warnings);
  return deny(problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`, warnings);
}

function describe(error: PolicyFieldError): string {
  return error.field ? `${error.field}: ${error.message}` : error.message;
}

function namespaceWarnings(exception: KubeObject, namespaces: readonly string[]): string[] {
  if (namespaces.length === 0) return ['PolicyException resources would not be processed until it is enabled.'];
  const namespace = exception.metadata?.namespace ?? '';
  if (namespaces.some((pattern) => wildcardMatch(pattern, namespace))) return [];
  return ['PolicyException resource namespace must match the defined namespace.'];
}
