/**
 * Kyverno's OCI image of policies (`kyverno oci push|pull`): an OCI image manifest whose config has
 * the media type `application/vnd.cncf.kyverno.config.v1+json` and which holds one layer per policy,
 * each the policy's YAML (`application/vnd.cncf.kyverno.policy.layer.v1+yaml`) annotated with the
 * policy's kind, name and apiVersion.
 */
import { createHash } from 'node:crypto';
import type { JsonObject, KubeObject } from '@edict/foundation';

export const POLICY_CONFIG_MEDIA_TYPE = 'application/vnd.cncf.kyverno.config.v1+json';
export const POLICY_LAYER_MEDIA_TYPE = 'application/vnd.cncf.kyverno.policy.layer.v1+yaml';
export const OCI_MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';
export const ANNOTATION_KIND = 'io.kyverno.image.kind';
export const ANNOTATION_NAME = 'io.kyverno.image.name';
export const ANNOTATION_API_VERSION = 'io.kyverno.image.apiVersion';

/** go-containerregistry's zero time, which the config of Kyverno's (empty-based) image carries. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

export interface PolicyLayer {
  readonly policy: KubeObject;
  readonly bytes: Uint8Array;
}

export function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The layer annotations naming a policy. */
export function policyAnnotations(policy: KubeObject): Record<string, string> {
  return {
    [ANNOTATION_KIND]: policy.kind,
    [ANNOTATION_NAME]: policy.metadata?.name ?? '',
    [ANNOTATION_API_VERSION]: policy.apiVersion,
  };
}

/** The image config: an empty image's, with one uncompressed (static) layer per policy. */
export function imageConfig(layers: readonly PolicyLayer[]): Uint8Array {
  const config = {
    architecture: '',
    created: ZERO_TIME,
    history: layers.map(() => ({ created: ZERO_TIME })),
    os: '',
    rootfs: { type: 'layers', diff_ids: layers.map((layer) => sha256(layer.bytes)) },
    config: {},
  };
  return Buffer.from(JSON.stringify(config));
}

/** The image manifest of the config and layers. */
export function imageManifest(config: Uint8Array, layers: readonly PolicyLayer[]): JsonObject {
  return {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST_MEDIA_TYPE,
    config: { mediaType: POLICY_CONFIG_MEDIA_TYPE, size: config.length, digest: sha256(config) },
    layers: layers.map((layer) => ({
      mediaType: POLICY_LAYER_MEDIA_TYPE,
      size: layer.bytes.length,
      digest: sha256(layer.bytes),
      annotations: policyAnnotations(layer.policy),
    })),
  };
}
