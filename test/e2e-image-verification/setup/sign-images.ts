/**
 * Signs and attests the pushed images as the twins expect, with the signers of
 * @edict/image-verify/testing: Cosign signatures with the committed keys, keyless Cosign signatures
 * and attestations from the run's own Fulcio and Rekor, Notary signatures and attestation referrers
 * with the committed certificate, Sigstore bundles with the run's own Sigstore (in-process Fulcio,
 * Rekor, CT log and TSA, fresh keys each run). Answers the per-run trust material the twins read
 * as `$values.trust`.
 */
import { createPublicKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  cosignAttest,
  cosignSign,
  createSigstoreTestTrust,
  createTestTrustMaterial,
  generateKeyPair,
  notationAttest,
  notationSign,
  sigstoreBundleSign,
  type OciWriter,
  type SigstoreTestTrust,
  type TestTrustMaterial,
} from '@edict/image-verify/testing';
import type { JsonObject } from '@edict/foundation';
import { LOCAL_DIR } from '../../e2e-conformance/args';
import type { PushedImage } from './images';

// From the repository's root, as the harness runs: in its bundle, __dirname is dist's folder.
const FIXTURES = resolve(LOCAL_DIR, 'fixtures');
const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';
/** The identities Kyverno's keyless tests name, under a GitHub organisation of the tests' own. */
const IDENTITIES = {
  zulu: 'https://github.com/edict-e2e/zulu/.github/workflows/slsa-generic-keyless.yaml@refs/tags/v0.0.14',
  slsa: 'https://github.com/slsa-framework/slsa-github-generator/.github/workflows/generator_container_slsa3.yml@refs/heads/main',
  vuln: 'https://github.com/edict-e2e/zulu/.github/workflows/vulnerability-scan.yaml@refs/heads/main',
  cosignRelease: 'https://github.com/edict-e2e/cosign/.github/workflows/release.yaml@refs/tags/v2.0.0',
};
const KUBERNETES_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const DEFAULT_SERVICE_ACCOUNT = 'https://kubernetes.io/namespaces/default/serviceaccounts/default';

export function fixture(name: string): string {
  return readFileSync(resolve(FIXTURES, name), 'utf8');
}

/** What `$values.trust` holds: the run's Sigstore, as PEM and as a trusted root. */
export interface RunTrust {
  readonly fulcioRoots: string;
  readonly rekorPublicKey: string;
  /** The log's URL (its checkpoints name it): Kyverno's `rekor.url`. */
  readonly rekorUrl: string;
  readonly ctlogPublicKey: string;
  readonly tsaCertChain: string;
  readonly trustedRootJson: string;
}

export async function signImages(oci: OciWriter, images: Readonly<Record<string, PushedImage>>): Promise<RunTrust> {
  // Certificates from the Fulcio-like CA of createSigstoreTestTrust (its SCTs parse; the mock's do
  // not); the mock TSA of createTestTrustMaterial for Cosign's RFC 3161 timestamps.
  const cosign = await createTestTrustMaterial();
  const sigstore = await createSigstoreTestTrust();
  const ref = (name: string): string => {
    const image = images[name];
    if (!image) throw new Error(`sign-images: no image ${name} in images.ts`);
    return image.ref;
  };
  await signCosignKeys(oci, cosign, ref);
  await signCosignKeyless(oci, sigstore, ref);
  await signNotary(oci, ref('signed'));
  await signBundles(oci, sigstore, ref);
  return { ...trustOf(sigstore), tsaCertChain: cosign.tsaCertChainPem };
}

/** Cosign key signatures (simple signing payloads in `sha256-<digest>.sig`) with the committed keys. */
async function signCosignKeys(oci: OciWriter, trust: TestTrustMaterial, ref: (name: string) => string): Promise<void> {
  const key = fixture('cosign.key');
  for (const name of ['signed', 'rollback1', 'rollback2']) await cosignSign(oci, ref(name), key);
  await cosignSign(oci, ref('signedBySomeoneElse'), fixture('someone-else.key'));
  await cosignSign(oci, ref('tsa'), fixture('tsa-signer.key'), { tsa: trust.tsa });
  // cosign's OCI 1.1 layout: a referrer of the image, no `.sig` tag.
  await cosignSign(oci, ref('cosignOci11'), key, { oci11: true });
}

/** Keyless Cosign signatures and attestations: certificates from the run's Fulcio, entries in its Rekor. */
async function signCosignKeyless(
  oci: OciWriter,
  trust: SigstoreTestTrust,
  ref: (name: string) => string,
): Promise<void> {
  const identity = async (subject: string, issuer: string) => {
    const { privateKeyPem, publicKeyPem } = generateKeyPair('ecdsa-p256');
    const spki = createPublicKey(publicKeyPem).export({ format: 'der', type: 'spki' });
    const certificate = await trust.ca.issueCertificate(spki, subject, issuer);
    const options = {
      certificate: certificatePem(certificate),
      chain: certificatePem(trust.ca.rootCertificate),
      rekorBundle: trust.tlog,
    };
    return { privateKeyPem, options };
  };
  const sign = async (image: string, subject: string, issuer = GITHUB_ISSUER): Promise<void> => {
    const { privateKeyPem, options } = await identity(subject, issuer);
    await cosignSign(oci, image, privateKeyPem, options);
  };
  const attest = async (
    image: string,
    subject: string,
    predicateType: string,
    predicate: JsonObject,
  ): Promise<void> => {
    const { privateKeyPem, options } = await identity(subject, GITHUB_ISSUER);
    await cosignAttest(oci, image, privateKeyPem, predicate, predicateType, options);
  };
  await sign(ref('zulu'), IDENTITIES.zulu);
  await attest(ref('zulu'), IDENTITIES.slsa, 'https://slsa.dev/provenance/v0.2', {
    builder: { id: IDENTITIES.slsa },
    buildType: 'https://github.com/slsa-framework/slsa-github-generator/container@v1',
  });
  await attest(ref('zulu'), IDENTITIES.vuln, 'cosign.sigstore.dev/attestation/vuln/v1', {
    scanner: { uri: 'pkg:github/aquasecurity/trivy@0.34.0', version: '0.34.0', result: {} },
  });
  await sign(ref('signedKeyless'), IDENTITIES.zulu);
  await sign(ref('cosignTool'), IDENTITIES.cosignRelease);
  await sign(ref('customSigstore'), DEFAULT_SERVICE_ACCOUNT, KUBERNETES_ISSUER);
}

/** The Notary signature and the two Notary-signed attestation referrers of Kyverno's signed test image. */
async function signNotary(oci: OciWriter, image: string): Promise<void> {
  const signer = { keyPem: fixture('notary.key'), certChainPem: fixture('notary.crt') };
  await notationSign(oci, image, signer);
  const sbom = {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    components: [{ name: 'app', licenses: [{ expression: 'GPL-3.0' }] }],
  };
  await notationAttest(oci, image, 'sbom/cyclone-dx', sbom, signer);
  await notationAttest(oci, image, 'vulnerability-scan', { source: { type: 'image' }, matches: [] }, signer);
}

/** GitHub artifact attestations (Sigstore bundles as referrers): a signature and a SLSA v1 provenance. */
async function signBundles(oci: OciWriter, sigstore: SigstoreTestTrust, ref: (name: string) => string): Promise<void> {
  const example =
    'https://github.com/edict-e2e/artifact-attestation-example/.github/workflows/build-attested-image.yaml@refs/heads/main';
  await sigstoreBundleSign(oci, ref('artifactAttestation'), sigstore, { subject: example, issuer: GITHUB_ISSUER });
  await sigstoreBundleSign(oci, ref('artifactAttestation'), sigstore, {
    subject: example,
    issuer: GITHUB_ISSUER,
    predicateType: 'https://slsa.dev/provenance/v1',
    predicate: { buildDefinition: { buildType: 'https://actions.github.io/buildtypes/workflow/v1' } },
  });
  await sigstoreBundleSign(oci, ref('signingDemo'), sigstore, {
    subject:
      'https://github.com/edict-e2e/github-signing-demo/.github/workflows/build-attested-image.yaml@refs/heads/main',
    issuer: GITHUB_ISSUER,
    // GitHub's own Sigstore (private repositories): no Rekor entry, a timestamp from its TSA instead.
    tlog: false,
    timestamp: true,
  });
}

function trustOf(sigstore: SigstoreTestTrust): RunTrust {
  return {
    fulcioRoots: certificatePem(sigstore.ca.rootCertificate),
    rekorPublicKey: publicKeyPem(sigstore.tlog.publicKey),
    rekorUrl: (JSON.parse(sigstore.trustedRootJson) as { tlogs: Array<{ baseUrl: string }> }).tlogs[0]!.baseUrl,
    ctlogPublicKey: publicKeyPem(sigstore.ctlog.publicKey),
    tsaCertChain: [sigstore.tsa.intCertificate, sigstore.tsa.rootCertificate].map(certificatePem).join(''),
    trustedRootJson: sigstore.trustedRootJson,
  };
}

function certificatePem(der: Uint8Array): string {
  return new X509Certificate(Buffer.from(der)).toString();
}

/** A DER SubjectPublicKeyInfo as PEM. */
function publicKeyPem(der: Uint8Array): string {
  const body = Buffer.from(der)
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN PUBLIC KEY-----\n${body}-----END PUBLIC KEY-----\n`;
}
