/**
 * The CEL policy kinds the cluster's CEL cache holds, and what it reads of a compiled
 * ImageValidatingPolicy (the engine's compiled form, from @edict/cel-policies).
 */
import type { JsonObject, KubeObject } from '@edict/foundation';

export type CelPolicyKind =
  'ValidatingPolicy' | 'NamespacedValidatingPolicy' | 'ImageValidatingPolicy' | 'NamespacedImageValidatingPolicy';

export type ImagePolicyKind = 'ImageValidatingPolicy' | 'NamespacedImageValidatingPolicy';

export function isImagePolicyKind(kind: string): kind is ImagePolicyKind {
  return kind === 'ImageValidatingPolicy' || kind === 'NamespacedImageValidatingPolicy';
}

/** What the cache, the status writer and the webhook builder read of a compiled image policy. */
export interface CompiledImagePolicy {
  readonly policy: KubeObject;
  readonly kind: ImagePolicyKind;
  readonly name: string;
  readonly namespace?: string;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly admission: boolean;
  readonly background: boolean;
  readonly timeoutSeconds?: number;
  readonly autogenStatus: JsonObject;
}

/** The engine's compiler of image policies; none until the engine exports one. */
export const IMAGE_POLICY_COMPILER: ((object: KubeObject) => CompiledImagePolicy) | undefined = undefined;
