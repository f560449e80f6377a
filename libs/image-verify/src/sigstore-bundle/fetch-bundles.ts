/**
 * Sigstore bundles attached to an image as OCI referrers (cosign's new bundle format, Kyverno's
 * fetchBundles): referrers whose artifact type starts with `application/vnd.dev.sigstore.bundle`,
 * and, for fallback-tag indexes that do not carry the artifact type, untyped referrers probed
 * under small byte budgets. A typed referrer that is not a valid bundle is an error, as in Kyverno.
 */
import { bundleFromJSON, type Bundle } from '@sigstore/bundle';
import { errorMessage, type JsonObject } from '@edict/foundation';
import { ImageVerificationError } from '../errors';
import type { OciDescriptor } from '../ports';
import type { RegistryAccess } from '../notary/registry';

export const SIGSTORE_BUNDLE_ARTIFACT_TYPE_PREFIX = 'application/vnd.dev.sigstore.bundle';
const OCI_EMPTY = 'application/vnd.oci.empty.v1+json';
/** Kyverno's bounds: referrers per image, bytes per bundle layer, and the untyped-referrer probe. */
export const MAX_BUNDLE_REFERRERS = 50;
const MAX_LAYER_BYTES = 10_000_000;
const MAX_PROBE_MANIFEST_BYTES = 64_000;
const MAX_PROBE_LAYER_BYTES = 1_000_000;
const MAX_PROBE_TOTAL_BYTES = 5_000_000;
/** All bundle layers of one image together (bundles are a few KB; Kyverno's per-layer cap alone allows 500 MB). */
const MAX_BUNDLE_TOTAL_BYTES = 20_000_000;
/** Layers that never hold a bundle: the probe skips them unread. */
const NOT_BUNDLE_LAYERS = [
  'application/vnd.oci.image.layer.',
  'application/vnd.docker.image.rootfs.',
  'application/vnd.dev.cosign.',
  'application/vnd.dsse.envelope.',
  'application/vnd.in-toto',
  'application/spdx',
  'application/vnd.cyclonedx',
];

export interface FetchedBundle {
  /** The referrer manifest's digest, for messages. */
  digest: string;
  bundle: Bundle;
}

export async function fetchBundles(registry: RegistryAccess, repo: string, digest: string): Promise<FetchedBundle[]> {
  const referrers = await registry.referrers(repo, digest, undefined, MAX_BUNDLE_REFERRERS);
  const out: FetchedBundle[] = [];
  let budget = MAX_PROBE_TOTAL_BYTES;
  let total = 0;
  for (const referrer of referrers) {
    const type = referrer.artifactType ?? '';
    if (isBundleType(type)) {
      const manifest = await registry.manifest(repo, referrer.digest);
      let bytes: Uint8Array;
      try {
        ({ bytes } = await firstLayer(registry, repo, manifest.json, manifest.digest, MAX_LAYER_BYTES));
      } catch (error) {
        throw new ImageVerificationError(
          `failed to fetch bundles: referrer ${referrer.digest}: ${errorMessage(error)}`,
        );
      }
      total += bytes.length;
      if (total > MAX_BUNDLE_TOTAL_BYTES) {
        throw new ImageVerificationError(
          `failed to fetch bundles: the image's Sigstore bundles exceed ${MAX_BUNDLE_TOTAL_BYTES} bytes in total`,
        );
      }
      out.push({ digest: referrer.digest, bundle: parseBundle(bytes, referrer.digest) });
    } else if (type === '' || type === OCI_EMPTY) {
      const probed = await probe(registry, repo, referrer, budget);
      budget = probed.budget;
      if (probed.bundle) out.push({ digest: referrer.digest, bundle: probed.bundle });
    }
  }
  return out;
}

export function isBundleType(type: string): boolean {
  return type.startsWith(SIGSTORE_BUNDLE_ARTIFACT_TYPE_PREFIX);
}

function parseBundle(bytes: Uint8Array, digest: string): Bundle {
  try {
    return bundleFromJSON(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)));
  } catch (error) {
    throw new ImageVerificationError(`failed to unmarshal bundle ${digest}: ${errorMessage(error)}`);
  }
}

async function firstLayer(
  registry: RegistryAccess,
  repo: string,
  manifest: JsonObject,
  digest: string,
  maxBytes: number,
): Promise<{ mediaType: string; bytes: Uint8Array }> {
  const layers = manifest.layers;
  if (!Array.isArray(layers) || layers.length === 0) throw new Error(`layers not found in ${digest}`);
  const layer = layers[0] as JsonObject;
  if (typeof layer.digest !== 'string' || typeof layer.size !== 'number')
    throw new Error(`malformed layer descriptor in ${digest}`);
  if (layer.size > maxBytes) throw new Error(`layer size ${layer.size} exceeds ${maxBytes}`);
  const bytes = await registry.blob(repo, layer.digest, maxBytes);
  return { mediaType: String(layer.mediaType ?? ''), bytes };
}

/** An untyped referrer: a bundle only if its small manifest and layer parse as one. */
async function probe(
  registry: RegistryAccess,
  repo: string,
  referrer: OciDescriptor,
  budget: number,
): Promise<{ budget: number; bundle?: Bundle }> {
  const manifestLimit = Math.min(MAX_PROBE_MANIFEST_BYTES, budget);
  if (manifestLimit <= 0 || referrer.size > manifestLimit) return { budget };
  const manifest = await registry.manifest(repo, referrer.digest);
  budget -= manifest.bytes.length;
  const layers = manifest.json.layers;
  if (!Array.isArray(layers) || layers.length === 0) return { budget };
  const layer = layers[0] as JsonObject;
  const mediaType = String(layer.mediaType ?? '');
  const typed = isBundleType(String(manifest.json.artifactType ?? '')) || isBundleType(mediaType);
  if (!typed && NOT_BUNDLE_LAYERS.some((prefix) => mediaType.startsWith(prefix))) return { budget };
  const limit = Math.min(typed ? MAX_LAYER_BYTES : MAX_PROBE_LAYER_BYTES, budget);
  if (typeof layer.size !== 'number' || typeof layer.digest !== 'string' || limit <= 0 || layer.size > limit)
    return { budget };
  const bytes = await registry.blob(repo, layer.digest, limit);
  budget -= Math.max(bytes.length, layer.size);
  try {
    return { budget, bundle: bundleFromJSON(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))) };
  } catch {
    return { budget };
  }
}
