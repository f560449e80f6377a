import { beforeAll, describe, expect, it } from 'vitest';
import type { CosignVerifier } from '../model';
import {
  cosignAttest,
  createTestTrustMaterial,
  generateKeyPair,
  InMemoryOci,
  pushImage,
  type TestTrustMaterial,
} from '../testing';
import { verifyImageAttestations } from '../verify';

const REPO = 'registry.test/team/app';
const IMAGE = `${REPO}:v1`;
const SLSA = 'https://slsa.dev/provenance/v0.2';
const VULN = 'https://cosign.sigstore.dev/attestation/vuln/v1';

let trust: TestTrustMaterial;
beforeAll(async () => {
  trust = await createTestTrustMaterial();
});

function keyVerifier(publicKeyPem: string, extra: Partial<CosignVerifier> = {}): CosignVerifier {
  return {
    type: 'cosign',
    publicKeys: [publicKeyPem],
    rekor: { ignoreTlog: true },
    ctlog: { ignoreSCT: true },
    ...extra,
  };
}

describe('cosign attestations', () => {
  it('answers the verified statements of the predicate type asked for', async () => {
    const oci = new InMemoryOci();
    const { digest } = await pushImage(oci, REPO, 'v1');
    const keys = generateKeyPair();
    await cosignAttest(oci, IMAGE, keys.privateKeyPem, { builder: { id: 'ci' } }, SLSA);
    await cosignAttest(oci, IMAGE, keys.privateKeyPem, { scanner: { result: [] } }, VULN);
    const result = await verifyImageAttestations(oci, IMAGE, SLSA, keyVerifier(keys.publicKeyPem));
    expect(result).toMatchObject({ verified: true, digest });
    expect(result.statements).toEqual([
      {
        _type: 'https://in-toto.io/Statement/v0.1',
        predicateType: SLSA,
        subject: [{ name: REPO, digest: { sha256: digest.slice('sha256:'.length) } }],
        predicate: { builder: { id: 'ci' } },
      },
    ]);
    // cosign's short names
    expect((await verifyImageAttestations(oci, IMAGE, 'vuln', keyVerifier(keys.publicKeyPem))).statements).toHaveLength(
      1,
    );
  });

  it('says which predicate types it found when the one asked for is missing', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const keys = generateKeyPair();
    await cosignAttest(oci, IMAGE, keys.privateKeyPem, {}, VULN);
    const result = await verifyImageAttestations(oci, IMAGE, SLSA, keyVerifier(keys.publicKeyPem));
    expect(result).toMatchObject({
      verified: false,
      reason: `required predicate type ${SLSA} not found, found [${VULN}]`,
    });
  });

  it('refuses attestations by another key, about another image, or none at all', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const keys = generateKeyPair('rsa');
    expect((await verifyImageAttestations(oci, IMAGE, SLSA, keyVerifier(keys.publicKeyPem))).reason).toBe(
      'no attestations found',
    );
    await cosignAttest(oci, IMAGE, generateKeyPair().privateKeyPem, {}, SLSA);
    await cosignAttest(oci, IMAGE, keys.privateKeyPem, {}, SLSA, { subjectDigest: `sha256:${'1'.repeat(64)}` });
    const result = await verifyImageAttestations(oci, IMAGE, SLSA, keyVerifier(keys.publicKeyPem));
    expect(result.verified).toBe(false);
    expect(result.reason).toBe(
      'no matching attestations: signature verification failed; no subject of the in-toto statement matches the image digest ' +
        (await oci.resolve(REPO, 'v1'))!.digest,
    );
  });

  it('verifies keyless attestations with Rekor (intoto entries) and identities', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const signer = await trust.keyless('mailto:ci@example.com', 'https://issuer.test');
    await cosignAttest(oci, IMAGE, signer.privateKeyPem, { ok: true }, SLSA, {
      certificate: signer.certificatePem,
      rekorBundle: trust.rekor,
    });
    const verifier: CosignVerifier = {
      type: 'cosign',
      keyless: {
        identities: [{ subject: 'mailto:ci@example.com', issuer: 'https://issuer.test' }],
        roots: trust.fulcioRootPem,
      },
      rekor: { ignoreTlog: false, publicKey: trust.rekorPublicKeyPem },
      ctlog: { ignoreSCT: false, publicKey: trust.ctlogPublicKeyPem },
    };
    expect(await verifyImageAttestations(oci, IMAGE, SLSA, verifier)).toMatchObject({
      verified: true,
      statements: [{ predicate: { ok: true } }],
    });
    verifier.keyless!.identities = [{ subject: 'mailto:other@example.com' }];
    expect((await verifyImageAttestations(oci, IMAGE, SLSA, verifier)).reason).toContain(
      'none of the expected identities matched',
    );
  });

  it('checks an attestation timestamp over the envelope', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const signer = await trust.keyless('mailto:ci@example.com', 'https://issuer.test');
    await cosignAttest(oci, IMAGE, signer.privateKeyPem, {}, SLSA, {
      certificate: signer.certificatePem,
      tsa: trust.tsa,
    });
    const verifier: CosignVerifier = {
      type: 'cosign',
      keyless: { identities: [], roots: trust.fulcioRootPem },
      rekor: { ignoreTlog: true },
      ctlog: { ignoreSCT: true },
      tsaCertChain: trust.tsaCertChainPem,
    };
    const later = { now: () => Date.now() + 60 * 60 * 1000 };
    expect((await verifyImageAttestations(oci, IMAGE, SLSA, verifier, later)).verified).toBe(true);
  });

  it('reads cosign custom predicates as JSON when they are', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const keys = generateKeyPair('ed25519');
    await cosignAttest(
      oci,
      IMAGE,
      keys.privateKeyPem,
      { Data: '{"team":"a"}', Timestamp: 'now' },
      'https://cosign.sigstore.dev/attestation/v1',
    );
    const result = await verifyImageAttestations(oci, IMAGE, 'custom', keyVerifier(keys.publicKeyPem));
    expect(result.statements[0].predicate).toEqual({ Data: { team: 'a' }, Timestamp: 'now' });
  });
});
