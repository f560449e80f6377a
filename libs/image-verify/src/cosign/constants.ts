/** Cosign's OCI layout (sigstore/cosign pkg/oci/static and pkg/types). */
export const SIMPLE_SIGNING_MEDIA_TYPE = 'application/vnd.dev.cosign.simplesigning.v1+json';
export const DSSE_MEDIA_TYPE = 'application/vnd.dsse.envelope.v1+json';
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const SIMPLE_SIGNING_TYPE = 'cosign container image signature';

export const ANNOTATION_SIGNATURE = 'dev.cosignproject.cosign/signature';
export const ANNOTATION_CERTIFICATE = 'dev.sigstore.cosign/certificate';
export const ANNOTATION_CHAIN = 'dev.sigstore.cosign/chain';
export const ANNOTATION_BUNDLE = 'dev.sigstore.cosign/bundle';
export const ANNOTATION_TIMESTAMP = 'dev.sigstore.cosign/rfc3161timestamp';
export const ANNOTATION_PREDICATE_TYPE = 'predicateType';

export const SIGNATURE_TAG_SUFFIX = 'sig';
/** The artifactType of a signature stored as an OCI 1.1 referrer (cosign's experimental OCI 1.1 layout). */
export const SIGNATURE_ARTIFACT_TYPE = 'application/vnd.dev.cosign.artifact.sig.v1+json';
export const ATTESTATION_TAG_SUFFIX = 'att';

/** Bounds on what a registry (or whoever can push signatures) makes us examine. */
export const MAX_SIGNATURE_LAYERS = 100;
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
/** One PEM value of a policy (key, certificate, chain of roots). */
export const MAX_PEM_LENGTH = 256 * 1024;
/** One identity pattern (Go RE2 syntax: linear time, but compiled size still grows with length). */
export const MAX_REGEXP_LENGTH = 4096;
