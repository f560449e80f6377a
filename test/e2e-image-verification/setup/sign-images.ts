/**
 * Signs and attests the pushed images as the twins expect, with the signers of
 * @edict/image-verify/testing: Notary signatures and attestation referrers with the committed
 * certificate, Sigstore bundles with the run's own Sigstore (in-process Fulcio, Rekor, CT log and
 * TSA, fresh keys each run). Answers the per-run trust material the twins read as `$values.trust`.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createSigstoreTestTrust,
  notationAttest,
  notationSign,
  sigstoreBundleSign,
  type OciWriter,
  type SigstoreTestTrust,
} from '@edict/image-verify/testing';
import type { PushedImage } from './images';

const FIXTURES = join(__dirname, '..', 'fixtures');
const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';

export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
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
  const sigstore = await createSigstoreTestTrust();
  const ref = (name: string): string => {
    const image = images[name];
    if (!image) throw new Error(`sign-images: no image ${name} in images.ts`);
    return image.ref;
  };
  await signNotary(oci, ref('signed'));
  await signBundles(oci, sigstore, ref);
  return trustOf(sigstore);
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
    tlog: false,
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
