import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ImageVerificationError,
  verifyImageAttestations,
  verifyImageSignatures,
  type CosignVerifier,
} from '@edict/image-verify';
import {
  cosignAttest,
  cosignSign,
  createTestTrustMaterial,
  generateKeyPair,
  pushImage,
  type TestTrustMaterial,
} from '@edict/image-verify/testing';
import type { OciClient } from '@edict/registry';
import { registryClientForTests, startLocalRegistry, type LocalRegistry } from '@edict/registry/testing';

// Cosign's tag layout (`sha256-<hex>.sig` / `.att`) on Debian's docker-registry, pushed and read by
// the registry lib's OciClient: what verifyImages rules of type Cosign check in a cluster.
let registry: LocalRegistry;
let client: ReturnType<typeof registryClientForTests>;
let oci: OciClient;
let trust: TestTrustMaterial;

beforeAll(async () => {
  registry = await startLocalRegistry();
  client = registryClientForTests();
  oci = client.oci();
  trust = await createTestTrustMaterial();
});

afterAll(async () => {
  client?.close();
  await registry?.stop();
});

function keyVerifier(publicKeyPem: string): CosignVerifier {
  return {
    type: 'cosign',
    publicKeys: [publicKeyPem],
    rekor: { ignoreTlog: false, publicKey: trust.rekorPublicKeyPem },
    ctlog: { ignoreSCT: true },
  };
}

describe('Cosign verification on a real registry', () => {
  it('verifies a key signature with its Rekor bundle, refuses another key and an unsigned image', async () => {
    const repo = `${registry.host}/cosign/app`;
    const signed = await pushImage(oci, repo, 'signed');
    const unsigned = await pushImage(oci, repo, 'unsigned', 'another image');
    const keys = generateKeyPair();
    await cosignSign(oci, `${repo}:signed`, keys.privateKeyPem, {
      rekorBundle: trust.rekor,
      annotations: { team: 'a' },
    });

    expect(await verifyImageSignatures(oci, `${repo}:signed`, keyVerifier(keys.publicKeyPem))).toMatchObject({
      verified: true,
      digest: signed.digest,
      signatures: [{ verifier: 'publicKeys[0]', payload: { optional: { team: 'a' } } }],
    });
    const wrong = await verifyImageSignatures(oci, `${repo}:signed`, keyVerifier(generateKeyPair().publicKeyPem));
    expect(wrong).toMatchObject({ verified: false, digest: signed.digest });
    expect(wrong.reason).toMatch(/^no matching signatures: /);
    expect(await verifyImageSignatures(oci, `${repo}:unsigned`, keyVerifier(keys.publicKeyPem))).toEqual({
      verified: false,
      digest: unsigned.digest,
      reason: 'no signatures found',
      signatures: [],
    });
  });

  it('verifies keyless signatures and attestations kept in a signature repository', async () => {
    const repo = `${registry.host}/cosign/keyless`;
    const signatures = `${registry.host}/cosign/signatures`;
    await pushImage(oci, repo, 'v1');
    const subject = 'https://github.com/edict/app/.github/workflows/release.yml@refs/heads/main';
    const issuer = 'https://token.actions.githubusercontent.com';
    const signer = await trust.keyless(subject, issuer);
    const material = { certificate: signer.certificatePem, chain: signer.chainPem, rekorBundle: trust.rekor };
    await cosignSign(oci, `${repo}:v1`, signer.privateKeyPem, { ...material, signatureRepository: signatures });
    await cosignAttest(
      oci,
      `${repo}:v1`,
      signer.privateKeyPem,
      { builder: { id: 'edict' } },
      'https://slsa.dev/provenance/v0.2',
      {
        ...material,
        signatureRepository: signatures,
      },
    );
    const verifier: CosignVerifier = {
      type: 'cosign',
      keyless: { identities: [{ subject, issuer }], roots: trust.fulcioRootPem },
      rekor: { ignoreTlog: false, publicKey: trust.rekorPublicKeyPem },
      ctlog: { ignoreSCT: false, publicKey: trust.ctlogPublicKeyPem },
      signatureRepository: signatures,
    };
    expect(await verifyImageSignatures(oci, `${repo}:v1`, verifier)).toMatchObject({
      verified: true,
      signatures: [{ verifier: 'keyless', subject, issuer }],
    });
    const provenance = await verifyImageAttestations(oci, `${repo}:v1`, 'slsaprovenance', verifier);
    expect(provenance.statements).toEqual([expect.objectContaining({ predicate: { builder: { id: 'edict' } } })]);
    const mismatch = {
      ...verifier,
      keyless: { ...verifier.keyless!, identities: [{ subject: 'https://github.com/evil', issuer }] },
    };
    expect((await verifyImageSignatures(oci, `${repo}:v1`, mismatch)).reason).toContain(
      'none of the expected identities matched',
    );
  });

  it('answers ImageVerificationError when the registry is down', async () => {
    const down = await startLocalRegistry();
    const image = `${down.host}/cosign/app:v1`;
    await pushImage(oci, `${down.host}/cosign/app`, 'v1');
    await down.stop();
    await expect(verifyImageSignatures(oci, image, keyVerifier(generateKeyPair().publicKeyPem))).rejects.toBeInstanceOf(
      ImageVerificationError,
    );
  });
});
