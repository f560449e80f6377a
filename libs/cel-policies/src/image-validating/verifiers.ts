import type { CosignVerifier, VerifierSpec } from '@edict/image-verify';
import type { Attestation, Attestor } from './types';

/**
 * An attestor, with its expressions' values filled in, as image-verify's neutral verifier (Kyverno's
 * pkg/image/verifiers/ivpol translation): cosign `key` (inline data), `keyless` (identities and
 * roots), `certificate`, `source.repository`, `ctlog` (Rekor URL and key, CT log key, TSA chain,
 * the two insecure switches), `tuf` (inline root, mirror) and `annotations`; notary `certs` and
 * `tsaCerts`. KMS keys, tag-prefix discovery and TUF roots by path are refused when compiled.
 */
export function verifierOf(attestor: Attestor): VerifierSpec {
  if (attestor.notary) {
    return {
      type: 'notary',
      certs: attestor.notary.certs?.value ?? '',
      ...(attestor.notary.tsaCerts?.value ? { tsaCerts: attestor.notary.tsaCerts.value } : {}),
    };
  }
  const cosign = attestor.cosign ?? {};
  const ctlog = cosign.ctlog ?? {};
  const verifier: CosignVerifier = {
    type: 'cosign',
    rekor: {
      ignoreTlog: ctlog.insecureIgnoreTlog === true,
      ...(ctlog.rekorPubKey ? { publicKey: ctlog.rekorPubKey } : {}),
      ...(ctlog.url ? { url: ctlog.url } : {}),
    },
    ctlog: {
      ignoreSCT: ctlog.insecureIgnoreSCT === true,
      ...(ctlog.ctLogPubKey ? { publicKey: ctlog.ctLogPubKey } : {}),
    },
  };
  if (ctlog.tsaCertChain) verifier.tsaCertChain = ctlog.tsaCertChain;
  if (cosign.key?.data) verifier.publicKeys = [cosign.key.data];
  if (cosign.key?.hashAlgorithm) verifier.hashAlgorithm = cosign.key.hashAlgorithm as CosignVerifier['hashAlgorithm'];
  if (cosign.keyless) {
    verifier.keyless = {
      identities: (cosign.keyless.identities ?? []).map((identity) => ({
        ...(identity.subject ? { subject: identity.subject } : {}),
        ...(identity.subjectRegExp ? { subjectRegExp: identity.subjectRegExp } : {}),
        ...(identity.issuer ? { issuer: identity.issuer } : {}),
        ...(identity.issuerRegExp ? { issuerRegExp: identity.issuerRegExp } : {}),
      })),
      ...(cosign.keyless.roots ? { roots: cosign.keyless.roots } : {}),
    };
  }
  if (cosign.certificate) {
    verifier.certificate = {
      ...(cosign.certificate.cert?.value ? { cert: cosign.certificate.cert.value } : {}),
      ...(cosign.certificate.certChain?.value ? { certChain: cosign.certificate.certChain.value } : {}),
    };
  }
  if (cosign.source?.repository) verifier.signatureRepository = cosign.source.repository;
  if (cosign.annotations && Object.keys(cosign.annotations).length > 0)
    verifier.annotations = { ...cosign.annotations };
  if (cosign.tuf && (cosign.tuf.root?.data || cosign.tuf.mirror)) {
    verifier.trustedRoot = {
      tuf: {
        ...(cosign.tuf.mirror ? { mirror: cosign.tuf.mirror } : {}),
        ...(cosign.tuf.root?.data ? { root: cosign.tuf.root.data } : {}),
      },
    };
  }
  return verifier;
}

/**
 * What an attestation asks image-verify for: the predicate type (in-toto) or artifact type
 * (OCI 1.1 referrer), and the verifier to use for it. Kyverno's notary verifier reads referrers
 * only; a cosign attestor reads a referrer attestation as a Sigstore bundle referrer.
 */
export function attestationRequest(
  attestation: Attestation,
  verifier: VerifierSpec,
): { type: string; verifier: VerifierSpec } | { error: string } {
  if (attestation.intoto?.type) {
    if (verifier.type === 'notary') return { error: 'notary verifier only supports oci 1.1 referrers as attestations' };
    return { type: attestation.intoto.type, verifier };
  }
  const type = attestation.referrer?.type ?? '';
  return { type, verifier: verifier.type === 'cosign' ? { ...verifier, bundle: true } : verifier };
}
