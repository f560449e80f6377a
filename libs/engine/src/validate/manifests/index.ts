// Manifests area: Kyverno's `validate.manifests` (sigstore-signed YAML manifests, offline, key-based).
export { validateManifests } from './validate-manifests';
export { verifyAttestorSet, expandStaticKeys, type AttestorContext, type AttestorOutcome } from './attestors';
export { verifyResource, manifestDiff, type VerifyOptions, type VerifyResult } from './verify-resource';
export {
  parseManifests,
  ManifestSpecError,
  DEFAULT_ANNOTATION_DOMAIN,
  type ManifestsSpec,
  type AttestorSet,
  type Attestor,
} from './spec';
export { ignoreFieldBindings, ignoredFieldsFor, type IgnoreFieldBinding, type ObjectReference } from './ignore-fields';
export { decodeMessage, yamlsInArtifact, type DecodedMessage } from './artifact';
export { signatureSets, verifySignatureSets, type KeySource, type SignatureSet } from './signature';
export { formatDiff, type Difference } from './diff';
