/**
 * kube-apiserver's refusals by admission policies. Both start from admission.NewForbidden (the
 * request's resource and name, the name from the object, else its generateName, else `Unknown`):
 * a ValidatingAdmissionPolicy denial keeps its `<resource> "<name>" is forbidden: ` prefix and takes
 * the validation's reason and its code (422 Invalid by default); a MutatingAdmissionPolicy error
 * (generic policy dispatcher) replaces the message by the policy error, keeps 403 and takes reason
 * Invalid for the dispatcher's own errors (mutations, match conditions), Forbidden otherwise.
 */
import { isObject, type JsonObject } from '@edict/foundation';
import { ApiError, qualifiedResource } from '../../status';
import type { AdmissionAttributes } from '../types';

/** The name admission.NewForbidden names. */
function forbiddenName(attributes: AdmissionAttributes): string {
  if (attributes.name) return attributes.name;
  const metadata = isObject(attributes.object?.metadata) ? attributes.object.metadata : {};
  if (typeof metadata.name === 'string' && metadata.name) return metadata.name;
  if (typeof metadata.generateName === 'string' && metadata.generateName) return metadata.generateName;
  return 'Unknown';
}

function forbiddenDetails(attributes: AdmissionAttributes, causes: readonly string[]): JsonObject {
  const { type } = attributes;
  return {
    name: forbiddenName(attributes),
    ...(type.group ? { group: type.group } : {}),
    kind: type.plural,
    causes: causes.map((message) => ({ message })),
  };
}

/** A ValidatingAdmissionPolicy denied the request with `message` (kube's full policy message). */
export function validatingPolicyDenied(
  attributes: AdmissionAttributes,
  denial: { message: string; reason: string; code: number },
): ApiError {
  const what = qualifiedResource(attributes.type.group, attributes.type.plural);
  return new ApiError(
    denial.code,
    denial.reason,
    `${what} "${forbiddenName(attributes)}" is forbidden: ${denial.message}`,
    forbiddenDetails(attributes, [denial.message]),
  );
}

/** MutatingAdmissionPolicy errors under failurePolicy Fail: the first answers, every one is a cause. */
export function mutatingPolicyDenied(
  attributes: AdmissionAttributes,
  errors: readonly { message: string; invalid: boolean }[],
): ApiError {
  const first = errors[0]!;
  return new ApiError(
    403,
    first.invalid ? 'Invalid' : 'Forbidden',
    first.message,
    forbiddenDetails(
      attributes,
      errors.map((error) => error.message),
    ),
  );
}
