import { isObject, setOwn, type JsonObject, type KubeObject } from '@edict/foundation';
import { decodeMessage } from './artifact';
import { diffValues, filterIgnored, withoutCanonicalizedImages, type Difference } from './diff';
import { ManifestError, wrapError } from './errors';
import { findManifestCandidates } from './find-manifest';
import { ignoredFieldsFor, type IgnoreFieldBinding } from './ignore-fields';
import { signatureSets, verifySignatureSets, type KeySource } from './signature';

export interface VerifyOptions {
  /** Annotation domain of the message and signatures (`cosign.sigstore.dev` by default). */
  domain: string;
  bindings: readonly IgnoreFieldBinding[];
  /** OCI reference of a manifest bundle (`repository`); empty for manifests embedded in annotations. */
  bundleRef: string;
  key: KeySource;
}

export interface VerifyResult {
  /** The object matches a signed manifest and a signature verified. */
  verified: boolean;
  signer: string;
  /** How the object differs from the closest signed manifest, when it matches none. */
  diff?: Difference[];
}

/**
 * k8s-manifest-sigstore's resource check as Kyverno runs it: find the signed manifest for the object
 * in its `message` annotation, compare it with the object (ignoring the configured fields), and verify
 * the signatures over the message. Throws a {@link ManifestError}: missing message or signature are
 * typed so that the caller can tell "not signed" from a real error.
 */
export function verifyResource(object: KubeObject, options: VerifyOptions): VerifyResult {
  const ignoreFields = ignoredFieldsFor(options.bindings, object);
  const annotations = stringAnnotations(object);
  const bundleRef = annotations[`${options.domain}/resourceBundleRef`] ?? options.bundleRef;
  let candidates: JsonObject[];
  try {
    candidates = fetchManifests(object, annotations, options.domain, bundleRef, ignoreFields);
  } catch (error) {
    throw wrapError('YAML manifest not found for this resource', error);
  }
  let matched = false;
  let diff: Difference[] | undefined;
  for (const candidate of candidates) {
    const differences = manifestDiff(candidate, object, ignoreFields);
    if (differences.length === 0) {
      matched = true;
      diff = undefined;
      break;
    }
    diff ??= differences;
  }
  let signer: string;
  try {
    signer = verifySignatureSets(signatureSets(annotations, options.domain), options.key);
  } catch (error) {
    throw wrapError('failed to verify signature', error);
  }
  return { verified: matched, signer, ...(diff ? { diff } : {}) };
}

function fetchManifests(
  object: KubeObject,
  annotations: Readonly<Record<string, string>>,
  domain: string,
  bundleRef: string,
  ignoreFields: readonly string[],
): JsonObject[] {
  if (bundleRef !== '') {
    throw new Error(
      `fetching manifest image: manifests in OCI images (${bundleRef}) are not supported by this engine, which works offline`,
    );
  }
  const message = annotations[`${domain}/message`];
  if (message === undefined) throw new ManifestError('message-not-found', 'message not found');
  const decoded = decodeMessage(message);
  if (decoded.payload instanceof Error) {
    throw new Error(`failed to decode base64 message in the annotation: ${decoded.payload.message}`);
  }
  let documents;
  try {
    documents = decoded.documents();
  } catch (error) {
    throw wrapError('failed to read YAMLs in the gzipped message', error);
  }
  const candidates = findManifestCandidates(documents, object, ignoreFields);
  if (candidates.length === 0) {
    throw new ManifestError('message-not-found', 'failed to find a YAML manifest in the gzipped message');
  }
  return candidates;
}

/**
 * The differences left once ignored fields and image canonicalisation are set aside; empty when the
 * object is the manifest. (Kyverno's dry-run comparisons need a cluster and are not attempted.)
 */
export function manifestDiff(manifest: JsonObject, object: KubeObject, ignoreFields: readonly string[]): Difference[] {
  const differences = withoutCanonicalizedImages(diffValues(manifest, object));
  return differences.length === 0 ? differences : filterIgnored(differences, ignoreFields);
}

/** Kubernetes reads annotations only when every value is a string. */
function stringAnnotations(object: KubeObject): Record<string, string> {
  const metadata = isObject(object.metadata) ? object.metadata : undefined;
  const annotations = metadata && isObject(metadata.annotations) ? metadata.annotations : undefined;
  if (!annotations) return {};
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(annotations)) {
    if (typeof value !== 'string') return {};
    setOwn(result, key, value);
  }
  return result;
}
