/**
 * The policy validation webhook's answer for the policies.kyverno.io kinds, as Kyverno's: a
 * ValidatingPolicy, an ImageValidatingPolicy, a MutatingPolicy, a GeneratingPolicy, a DeletingPolicy
 * (or their Namespaced forms), or a CEL PolicyException, whose CEL does not compile or type-check (or
 * whose spec breaks a rule Kyverno checks in code) is refused. A kind whose checker this build lacks
 * is refused too (fail closed), never admitted unchecked. Each
 * problem is `field: message` (the compiler's message, naming the expression's field) and comes
 * back as a warning too; the denial names the first one alone, or all of them as `[a, b]` (Go's
 * aggregated field errors). An exception outside the exception namespaces is admitted with a
 * warning: it is stored but never used, as classic PolicyExceptions.
 */
import { allow, deny, type AdmissionDecision } from '@edict/admission';
import {
  celPolicyExceptionErrors,
  deletingPolicyErrors,
  generatingPolicyErrors,
  imageValidatingPolicyErrors,
  isCelPolicyException,
  isDeletingPolicy,
  isGeneratingPolicy,
  isImageValidatingPolicy,
  isMutatingPolicy,
  isValidatingPolicy,
  mutatingPolicyErrors,
  validatingPolicyErrors,
  type PolicyFieldError,
} from '@edict/cel-policies';
import { errorMessage, wildcardMatch, type KubeObject } from '@edict/foundation';

type Header = { apiVersion?: string; kind?: string };
type ErrorList = (object: KubeObject) => PolicyFieldError[];

export interface CelPolicyValidationOptions {
  /** Namespaces exceptions are used from (wildcards; empty: exceptions are off). */
  readonly exceptionNamespaces: readonly string[];
  /** The error lists, injectable for specs (default: @edict/cel-policies'). */
  readonly policyErrors?: ErrorList;
  readonly exceptionErrors?: ErrorList;
  readonly imagePolicyErrors?: ErrorList;
  readonly mutatingPolicyErrors?: ErrorList;
  readonly generatingPolicyErrors?: ErrorList;
  readonly deletingPolicyErrors?: ErrorList;
}

/** Each kind family: how it is recognised and which error list judges it (undefined: none in this build, refused). */
const FAMILIES: ReadonlyArray<{
  readonly is: (header: Header) => boolean;
  readonly errors: (options: CelPolicyValidationOptions) => ErrorList | undefined;
}> = [
  { is: isCelPolicyException, errors: (o) => o.exceptionErrors ?? celPolicyExceptionErrors },
  { is: isValidatingPolicy, errors: (o) => o.policyErrors ?? validatingPolicyErrors },
  { is: isImageValidatingPolicy, errors: (o) => o.imagePolicyErrors ?? imageValidatingPolicyErrors },
  { is: isMutatingPolicy, errors: (o) => o.mutatingPolicyErrors ?? mutatingPolicyErrors },
  { is: isGeneratingPolicy, errors: (o) => o.generatingPolicyErrors ?? ((policy) => generatingPolicyErrors(policy)) },
  { is: isDeletingPolicy, errors: (o) => o.deletingPolicyErrors ?? deletingPolicyErrors },
];

/** Whether the object is one of the policies.kyverno.io kinds this validation judges. */
export function isCelPolicyKind(object: { apiVersion?: unknown; kind?: unknown }): boolean {
  const header = { apiVersion: String(object.apiVersion ?? ''), kind: String(object.kind ?? '') };
  return FAMILIES.some((family) => family.is(header));
}

/** The decision for one policies.kyverno.io object (the CRD schema is checked before this). */
export function celPolicyValidation(object: KubeObject, options: CelPolicyValidationOptions): AdmissionDecision {
  const exception = isCelPolicyException(object);
  const errorsOf = FAMILIES.find((family) => family.is(object))?.errors(options);
  let errors: PolicyFieldError[];
  try {
    if (!errorsOf) throw new Error(`${object.kind ?? 'this kind'} is not supported by this version of Edict`);
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
