/**
 * Kyverno's labels on UpdateRequests (api/kyverno/v2 constants; background/common MutateLabelsSet
 * and GenerateLabelsSet), which the background controller selects by: for mutate-existing, the
 * policy and the trigger (name hashed, uid, namespace, kind, apiVersion with `/` as `-`); for
 * generate, the policy only. The policy label holds the name without namespace.
 */
import { createHash } from 'node:crypto';
import type { UpdateRequestSpec } from '@edict/admission';

export const UR_MUTATE_POLICY = 'mutate.updaterequest.kyverno.io/policy-name';
export const UR_MUTATE_TRIGGER_HASHED_NAME = 'mutate.updaterequest.kyverno.io/trigger-hashed-encoded-name';
export const UR_MUTATE_TRIGGER_UID = 'mutate.updaterequest.kyverno.io/trigger-uid';
export const UR_MUTATE_TRIGGER_NAMESPACE = 'mutate.updaterequest.kyverno.io/trigger-namespace';
export const UR_MUTATE_TRIGGER_KIND = 'mutate.updaterequest.kyverno.io/trigger-kind';
export const UR_MUTATE_TRIGGER_API_VERSION = 'mutate.updaterequest.kyverno.io/trigger-apiversion';
export const UR_GENERATE_POLICY = 'generate.kyverno.io/policy-name';

export function updateRequestLabels(spec: UpdateRequestSpec): Record<string, string> {
  const policyName = spec.policy.includes('/') ? spec.policy.slice(spec.policy.indexOf('/') + 1) : spec.policy;
  if (spec.requestType === 'generate' || spec.requestType === 'cel-generate')
    return { [UR_GENERATE_POLICY]: policyName };
  const trigger = spec.resource;
  const labels: Record<string, string> = {
    [UR_MUTATE_POLICY]: policyName,
    [UR_MUTATE_TRIGGER_HASHED_NAME]: hashEncodeName(trigger.name ?? ''),
    [UR_MUTATE_TRIGGER_UID]: trigger.uid ?? '',
    [UR_MUTATE_TRIGGER_NAMESPACE]: trigger.namespace ?? '',
    [UR_MUTATE_TRIGGER_KIND]: trigger.kind ?? '',
  };
  if (trigger.apiVersion) labels[UR_MUTATE_TRIGGER_API_VERSION] = trigger.apiVersion.replaceAll('/', '-');
  return labels;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** SHA-256 of the name in lower-case unpadded base32 (52 characters: fits a label value). */
export function hashEncodeName(name: string): string {
  const bytes = createHash('sha256').update(name).digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}
