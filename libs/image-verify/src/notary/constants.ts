/** Names of the Notary Project signature specification (notaryproject/specifications). */
export const NOTARY_SIGNATURE_ARTIFACT_TYPE = 'application/vnd.cncf.notary.signature';
export const NOTARY_PAYLOAD_TYPE = 'application/vnd.cncf.notary.payload.v1+json';
export const JWS_MEDIA_TYPE = 'application/jose+json';
export const COSE_MEDIA_TYPE = 'application/cose';
export const THUMBPRINT_ANNOTATION = 'io.cncf.notary.x509chain.thumbprint#S256';

export const HEADER_SIGNING_SCHEME = 'io.cncf.notary.signingScheme';
export const HEADER_SIGNING_TIME = 'io.cncf.notary.signingTime';
export const HEADER_AUTHENTIC_SIGNING_TIME = 'io.cncf.notary.authenticSigningTime';
export const HEADER_EXPIRY = 'io.cncf.notary.expiry';
export const HEADER_VERIFICATION_PLUGIN = 'io.cncf.notary.verificationPlugin';
export const HEADER_VERIFICATION_PLUGIN_MIN_VERSION = 'io.cncf.notary.verificationPluginMinVersion';
export const HEADER_TIMESTAMP_SIGNATURE = 'io.cncf.notary.timestampSignature';
export const HEADER_SIGNING_AGENT = 'io.cncf.notary.signingAgent';

export const SCHEME_X509 = 'notary.x509';
export const SCHEME_SIGNING_AUTHORITY = 'notary.x509.signingAuthority';

/** The signature algorithms of the specification: JWS `alg` names and COSE `alg` numbers. */
export type NotaryAlgorithm = 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512';
export const COSE_ALGORITHMS: Record<number, NotaryAlgorithm> = {
  [-37]: 'PS256',
  [-38]: 'PS384',
  [-39]: 'PS512',
  [-7]: 'ES256',
  [-35]: 'ES384',
  [-36]: 'ES512',
};
export const ALGORITHM_HASH: Record<NotaryAlgorithm, 'sha256' | 'sha384' | 'sha512'> = {
  PS256: 'sha256',
  PS384: 'sha384',
  PS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
};

/** Kyverno's bounds (pkg/notary): referrers listed per image, signatures tried, bytes read per blob. */
export const MAX_REFERRERS = 50;
export const MAX_SIGNATURE_ATTEMPTS = 10;
export const MAX_BLOB_BYTES = 10_000_000;
