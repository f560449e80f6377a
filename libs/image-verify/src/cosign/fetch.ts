/**
 * Cosign's OCI layout on the registry: the image digest, then the `sha256-<hex>.sig` / `.att`
 * manifest in the image's repository (or the signature repository) and its layers, or a signature
 * manifest stored as an OCI 1.1 referrer of the image (cosign's OCI 1.1 layout). Registry
 * failures are ImageVerificationError; an absent tag is "nothing signed".
 */
import { createHash } from 'node:crypto';
import { errorMessage, type JsonObject } from '@edict/foundation';
import { ImageVerificationError } from '../errors';
import { parseImageRef, type ImageRef, type VerifyOptions } from '../model';
import type { OciReader } from '../ports';
import { MAX_PAYLOAD_BYTES, MAX_SIGNATURE_LAYERS, SIGNATURE_ARTIFACT_TYPE } from './constants';

export interface CosignLayer {
  mediaType: string;
  digest: string;
  annotations: Record<string, string>;
  payload: Buffer;
  /** Why this layer cannot be a signature (too large, content not matching its digest). */
  problem?: string;
}

function checkDeadline(options: VerifyOptions): void {
  const now = (options.now ?? Date.now)();
  if (options.deadline !== undefined && now > options.deadline)
    throw new ImageVerificationError('image verification ran out of time');
}

async function registry<T>(what: string, options: VerifyOptions, call: () => Promise<T>): Promise<T> {
  checkDeadline(options);
  try {
    return await call();
  } catch (error) {
    if (error instanceof ImageVerificationError) throw error;
    throw new ImageVerificationError(`${what}: ${errorMessage(error)}`, { cause: error });
  }
}

/** The image's manifest digest: the one written, else what its tag resolves to. */
export async function resolveImage(
  oci: OciReader,
  image: string,
  options: VerifyOptions,
): Promise<{ ref: ImageRef; digest: string }> {
  const ref = parseImageRef(image);
  if (ref.digest) return { ref, digest: ref.digest };
  const descriptor = await registry(`failed to resolve ${image}`, options, () =>
    oci.resolve(ref.repo, ref.tag ?? 'latest'),
  );
  if (!descriptor) throw new ImageVerificationError(`image ${image} not found in ${ref.repo}`);
  return { ref, digest: descriptor.digest };
}

/** Where `.sig`/`.att` live: the signature repository when the policy names one. */
export function signatureRepo(ref: ImageRef, signatureRepository: string | undefined): string {
  if (!signatureRepository) return ref.repo;
  const name = signatureRepository.replace(/^oci:\/\//, '');
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  if (name.includes('@') || lastSegment.includes(':'))
    throw new ImageVerificationError(`${signatureRepository} is a repository: it takes no tag or digest`, {
      field: 'signatureRepository',
    });
  try {
    return parseImageRef(name).repo;
  } catch (error) {
    throw new ImageVerificationError(`${signatureRepository} is not a repository: ${errorMessage(error)}`, {
      field: 'signatureRepository',
    });
  }
}

/** The layers of `<algo>-<hex>.<suffix>`; undefined when that tag does not exist. */
export async function fetchCosignLayers(
  oci: OciReader,
  repo: string,
  digest: string,
  suffix: string,
  options: VerifyOptions,
): Promise<CosignLayer[] | undefined> {
  return fetchLayersOf(oci, repo, `${digest.replace(':', '-')}.${suffix}`, ':', options);
}

/**
 * The layers of the signature manifest stored as an OCI 1.1 referrer of `digest` (artifactType
 * SIGNATURE_ARTIFACT_TYPE): the last one listed, as cosign takes; undefined when there is none.
 */
export async function fetchReferrerSignatureLayers(
  oci: OciReader,
  repo: string,
  digest: string,
  options: VerifyOptions,
): Promise<CosignLayer[] | undefined> {
  const referrers = await registry(`failed to list the referrers of ${repo}@${digest}`, options, () =>
    oci.listReferrers(repo, digest, SIGNATURE_ARTIFACT_TYPE),
  );
  const last = referrers.filter((referrer) => referrer.artifactType === SIGNATURE_ARTIFACT_TYPE).at(-1);
  if (!last) return undefined;
  return fetchLayersOf(oci, repo, last.digest, '@', options);
}

async function fetchLayersOf(
  oci: OciReader,
  repo: string,
  reference: string,
  separator: ':' | '@',
  options: VerifyOptions,
): Promise<CosignLayer[] | undefined> {
  const where = `${repo}${separator}${reference}`;
  const manifest = await registry(`failed to fetch ${where}`, options, () =>
    oci.getManifest(repo, reference, [
      'application/vnd.oci.image.manifest.v1+json',
      'application/vnd.docker.distribution.manifest.v2+json',
    ]),
  );
  if (!manifest) return undefined;
  const layers = Array.isArray(manifest.json.layers) ? (manifest.json.layers as JsonObject[]) : [];
  if (layers.length > MAX_SIGNATURE_LAYERS)
    throw new ImageVerificationError(
      `${where} has ${layers.length} layers, more than the ${MAX_SIGNATURE_LAYERS} Edict examines`,
    );
  const out: CosignLayer[] = [];
  for (const layer of layers) {
    const layerDigest = typeof layer.digest === 'string' ? layer.digest : '';
    const size = typeof layer.size === 'number' ? layer.size : 0;
    const base = {
      mediaType: typeof layer.mediaType === 'string' ? layer.mediaType : '',
      digest: layerDigest,
      annotations: stringMap(layer.annotations),
    };
    if (!/^sha256:[0-9a-f]{64}$/.test(layerDigest)) {
      out.push({ ...base, payload: Buffer.alloc(0), problem: 'layer has no sha256 digest' });
      continue;
    }
    if (size > MAX_PAYLOAD_BYTES) {
      out.push({ ...base, payload: Buffer.alloc(0), problem: `payload larger than ${MAX_PAYLOAD_BYTES} bytes` });
      continue;
    }
    const payload = Buffer.from(
      await registry(`failed to fetch ${repo}@${layerDigest}`, options, () =>
        oci.getBlob(repo, layerDigest, MAX_PAYLOAD_BYTES),
      ),
    );
    // The reader verifies digests; checked again because a payload is what the signature covers.
    const problem =
      `sha256:${createHash('sha256').update(payload).digest('hex')}` === layerDigest
        ? undefined
        : 'payload does not match its digest';
    out.push(problem ? { ...base, payload, problem } : { ...base, payload });
  }
  return out;
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [key, entry] of Object.entries(value)) if (typeof entry === 'string') out[key] = entry;
  return out;
}
