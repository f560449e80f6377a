import { CelMeter, describeCelError, toCel, type CelProgram } from '@edict/cel';
import { extractImages, type JsonPatchOperation, type PolicyResponse } from '@edict/engine';
import {
  DEFAULT_EVALUATION_LIMITS,
  EvaluationBudget,
  errorMessage,
  type JsonObject,
  type KubeObject,
} from '@edict/foundation';
import { parseImageRef } from '@edict/image-verify';
import { applicableExceptions } from '../evaluate/evaluate-policy';
import type { CelPolicyInput } from '../evaluate/input';
import { admissionAttributesOf, kyvernoRequestOf, namespaceOf } from '../evaluate/attributes';
import { celValue } from '../evaluate/activation';
import { imageProgramsOf, type ImageSpecPrograms } from './compile';
import type { CompiledImageValidatingPolicy } from './compiled-policy';
import { matchesReferences, selectSpec } from './evaluate';
import type { DigestMutation, ImageValidatingPolicyContext } from './ports';
import { policyRegistryAccess } from './credentials';
import { errorRule, policyResponse } from './responses';

/** Kyverno's annotation naming each ImageValidatingPolicy's outcome on the admitted object. */
export const IMAGE_VERIFICATION_OUTCOMES_ANNOTATION = 'kyverno.io/image-verification-outcomes';

/**
 * validationConfigurations.mutateDigest at admission (Kyverno's HandleMutating): for a policy whose
 * matchConstraints and match conditions select the request and no exception exempts it, each
 * container image (Pod, pod controller template, CronJob job template) that matchImageReferences
 * select and that has no digest is pinned: a `replace` of its field with `<image>@<digest>`. Images
 * are resolved one by one; one that cannot be resolved gives the policy a `mutateDigest` error
 * (Deny then refuses the request) without costing the others their patch. No verification here.
 */
export async function mutateImageDigests(
  compiled: CompiledImageValidatingPolicy,
  input: CelPolicyInput,
  context: ImageValidatingPolicyContext,
): Promise<DigestMutation> {
  if (!compiled.mutateDigest || compiled.mode !== 'Kubernetes') return { patches: [] };
  const object = input.request.resource;
  if (!object || input.request.operation === 'DELETE') return { patches: [] };
  if (compiled.namespace !== undefined && namespaceOf(object) !== compiled.namespace) return { patches: [] };
  const attributes = admissionAttributesOf(input);
  const programs = imageProgramsOf(compiled);
  // The own spec or the autogen config that selects the request, with its own match conditions
  // (a CronJob is matched by the cronjobs config's conditions, not the Pod's).
  const selected = selectSpec(programs, attributes, input);
  if (!selected) return { patches: [] };
  if ('error' in selected) return { patches: [], response: mutateError(compiled, input, selected.error) };
  const request = toCel(kyvernoRequestOf(attributes, selected.matchedAs));
  const allowed = await conditionsAllow(compiled, selected.spec, input, context, request);
  if (typeof allowed === 'object') return { patches: [], response: mutateError(compiled, input, allowed.error) };
  if (!allowed) return { patches: [] };

  const meter = new CelMeter(new EvaluationBudget(DEFAULT_EVALUATION_LIMITS, context.deadline));
  const patches: JsonPatchOperation[] = [];
  const failures: string[] = [];
  let infos;
  try {
    infos = extractImages(object as KubeObject);
  } catch (error) {
    return { patches, response: mutateError(compiled, input, errorMessage(error)) };
  }
  const ports = context.images;
  for (const group of Object.values(infos)) {
    for (const info of Object.values(group)) {
      if (info.digest) continue;
      const image = info.referenceWithTag;
      try {
        if (!matchesReferences(programs, image, meter)) continue;
      } catch (error) {
        return { patches, response: mutateError(compiled, input, errorMessage(error)) };
      }
      if (!ports) {
        failures.push(`failed to resolve digest for image ${image}: image verification is not configured`);
        continue;
      }
      try {
        const ref = parseImageRef(image);
        const descriptor = await ports.oci(policyRegistryAccess(compiled)).resolve(ref.repo, ref.tag ?? 'latest');
        if (!descriptor) throw new Error('the image was not found in its registry');
        patches.push({ op: 'replace', path: info.jsonPointer, value: `${image}@${descriptor.digest}` });
      } catch (error) {
        failures.push(`failed to resolve digest for image ${image}: ${errorMessage(error)}`);
      }
    }
  }
  if (failures.length === 0) return { patches };
  return { patches, response: mutateError(compiled, input, failures.join('; ')) };
}

/**
 * The patches writing `kyverno.io/image-verification-outcomes` as Kyverno 1.18 did: a JSON object
 * of each policy's outcome (name, ruleType, message, status). Edict never reads it back to decide:
 * the validating webhook always verifies again (a client could forge it).
 */
export function imageVerificationOutcomePatches(
  responses: readonly PolicyResponse[],
  hasAnnotations: boolean,
): JsonPatchOperation[] {
  const outcomes: Record<string, JsonObject> = {};
  for (const response of responses) {
    const rule = response.rules[0];
    if (!rule) continue;
    outcomes[response.policy.name] = {
      ...(rule.name ? { name: rule.name } : {}),
      ruleType: rule.type,
      ...(rule.message ? { message: rule.message } : {}),
      status: rule.status,
      ...(rule.properties && Object.keys(rule.properties).length > 0 ? { properties: { ...rule.properties } } : {}),
    };
  }
  const patches: JsonPatchOperation[] = [];
  if (!hasAnnotations) patches.push({ op: 'add', path: '/metadata/annotations', value: {} });
  patches.push({
    op: 'add',
    path: `/metadata/annotations/${IMAGE_VERIFICATION_OUTCOMES_ANNOTATION.replace(/~/g, '~0').replace(/\//g, '~1')}`,
    value: JSON.stringify(outcomes),
  });
  return patches;
}

function mutateError(compiled: CompiledImageValidatingPolicy, input: CelPolicyInput, cause: string): PolicyResponse {
  return policyResponse(compiled, input, [errorRule('mutateDigest', 'failed to update digest', cause)]);
}

/**
 * The policy's match conditions hold and no exception fully exempts the request (exceptions with
 * images or allowedValues do not stop the pinning). An error: the policy's mutateDigest error
 * (under Ignore, a failing condition does not match).
 */
async function conditionsAllow(
  compiled: CompiledImageValidatingPolicy,
  spec: ImageSpecPrograms,
  input: CelPolicyInput,
  context: ImageValidatingPolicyContext,
  request: unknown,
): Promise<boolean | { error: string }> {
  const activation = {
    object: celValue(input.request.resource),
    oldObject: celValue(input.request.oldResource),
    namespaceObject: celValue(input.namespaceObject),
    request,
  };
  const holds = async (conditions: readonly { name: string; program: CelProgram }[]) => {
    for (const condition of conditions) {
      try {
        const value = await condition.program.evaluate(activation);
        if (value === false) return false;
        if (value !== true) return { error: `matchCondition '${condition.name}' must evaluate to bool` };
      } catch (error) {
        return { error: `matchCondition '${condition.name}': ${describeCelError(error)}` };
      }
    }
    return true;
  };
  const own = await holds(spec.spec.matchConditions);
  if (own !== true) return typeof own === 'object' && compiled.failurePolicy === 'Ignore' ? false : own;
  for (const exception of applicableExceptions(compiled, context)) {
    if (exception.images.length > 0 || exception.allowedValues.length > 0) continue;
    const exempt = await holds(exception.matchConditions);
    if (exempt === true) return false;
  }
  return true;
}
