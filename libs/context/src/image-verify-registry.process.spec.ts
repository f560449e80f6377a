import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyImageAttestations, verifyImageSignatures, type CosignVerifier } from '@edict/image-verify';
import {
  createSigstoreTestTrust,
  createTestCa,
  notationAttest,
  notationSign,
  pushImage,
  sigstoreBundleSign,
} from '@edict/image-verify/testing';
import type { OciClient } from '@edict/registry';
import { registryClientForTests, startLocalRegistry, type LocalRegistry } from '@edict/registry/testing';

// Notary and Sigstore bundle referrers on Debian's docker-registry (distribution 2.8, no referrers
// API): pushed and listed through the OCI 1.1 fallback tag by the registry lib's OciClient.
let registry: LocalRegistry;
let client: ReturnType<typeof registryClientForTests>;
let oci: OciClient;

beforeAll(async () => {
  registry = await startLocalRegistry();
  client = registryClientForTests();
  oci = client.oci();
});

afterAll(async () => {
  client?.close();
  await registry?.stop();
});

describe('image verification of referrers on a real registry', () => {
  it('verifies a COSE notation signature and a signed notation attestation, and not another CA', async () => {
    const repo = `${registry.host}/notary`;
    const root = await createTestCa();
    const leaf = await root.issue({});
    const image = await pushImage(oci, repo, 'v1');
    const sign = { keyPem: leaf.keyPem, certChainPem: leaf.certPem + root.certPem };
    await notationSign(oci, `${repo}:v1`, { ...sign, cose: true });
    await notationAttest(oci, `${repo}:v1`, 'application/vnd.example.sbom+json', { packages: ['openssl'] }, sign);

    const verifier = { type: 'notary' as const, certs: root.certPem };
    expect(await verifyImageSignatures(oci, `${repo}:v1`, verifier)).toMatchObject({
      verified: true,
      digest: image.digest,
    });
    const attestation = await verifyImageAttestations(oci, `${repo}:v1`, 'application/vnd.example.sbom+json', verifier);
    expect(attestation.statements[0]).toMatchObject({ predicate: { packages: ['openssl'] } });
    const other = await createTestCa({ commonName: 'other' });
    expect((await verifyImageSignatures(oci, `${repo}:v1`, { type: 'notary', certs: other.certPem })).verified).toBe(
      false,
    );
  });

  it('verifies a keyless Sigstore bundle and its attestation, and refuses another identity', async () => {
    const repo = `${registry.host}/bundles`;
    const trust = await createSigstoreTestTrust();
    const image = await pushImage(oci, repo, 'v1');
    const subject = 'https://github.com/edict/app/.github/workflows/release.yml@refs/heads/main';
    const issuer = 'https://token.actions.githubusercontent.com';
    await sigstoreBundleSign(oci, `${repo}:v1`, trust, { subject, issuer });
    await sigstoreBundleSign(oci, `${repo}:v1`, trust, {
      subject,
      issuer,
      predicateType: 'https://slsa.dev/provenance/v1',
      predicate: { builder: 'edict' },
    });
    const verifier: CosignVerifier = {
      type: 'cosign',
      bundle: true,
      keyless: { identities: [{ subject, issuer }] },
      rekor: { ignoreTlog: false },
      ctlog: { ignoreSCT: false },
      trustedRoot: { trustedRootJson: trust.trustedRootJson },
    };
    expect(await verifyImageSignatures(oci, `${repo}:v1`, verifier)).toMatchObject({
      verified: true,
      digest: image.digest,
    });
    const provenance = await verifyImageAttestations(oci, `${repo}:v1`, 'https://slsa.dev/provenance/v1', verifier);
    expect(provenance.statements).toEqual([expect.objectContaining({ predicate: { builder: 'edict' } })]);
    const wrong = { ...verifier, keyless: { identities: [{ subject: 'https://github.com/evil/app', issuer }] } };
    expect((await verifyImageSignatures(oci, `${repo}:v1`, wrong)).verified).toBe(false);
  });
});
