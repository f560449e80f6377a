import { beforeAll, describe, expect, it } from 'vitest';
import type { CosignVerifier } from '../model';
import { createPublicKey } from 'node:crypto';
import {
  cosignSign,
  createSigstoreTestTrust,
  createTestTrustMaterial,
  derToPem,
  generateKeyPair,
  InMemoryOci,
  pushImage,
  type TestTrustMaterial,
} from '../testing';
import { verifyImageSignatures } from '../verify';

const REPO = 'registry.test/team/app';
const IMAGE = `${REPO}:v1`;
const SUBJECT = 'https://github.com/org/app/.github/workflows/release.yml@refs/heads/main';
const ISSUER = 'https://token.actions.githubusercontent.com';
const WORKFLOW_REPOSITORY = '1.3.6.1.4.1.57264.1.5';

let trust: TestTrustMaterial;
beforeAll(async () => {
  trust = await createTestTrustMaterial();
});

function keyless(extra: Partial<CosignVerifier> = {}, identity = { subject: SUBJECT, issuer: ISSUER }): CosignVerifier {
  return {
    type: 'cosign',
    keyless: { identities: [identity], roots: trust.fulcioRootPem },
    rekor: { ignoreTlog: false, publicKey: trust.rekorPublicKeyPem },
    ctlog: { ignoreSCT: false, publicKey: trust.ctlogPublicKeyPem },
    ...extra,
  };
}

async function signedImage(
  opts: { subject?: string; issuer?: string; rekor?: boolean; extensions?: Record<string, string> } = {},
): Promise<InMemoryOci> {
  const oci = new InMemoryOci();
  await pushImage(oci, REPO, 'v1');
  const signer = await trust.keyless(opts.subject ?? SUBJECT, opts.issuer ?? ISSUER, opts.extensions);
  await cosignSign(oci, IMAGE, signer.privateKeyPem, {
    certificate: signer.certificatePem,
    chain: signer.chainPem,
    rekorBundle: opts.rekor === false ? false : trust.rekor,
  });
  return oci;
}

describe('cosign keyless signatures', () => {
  it('verifies the Fulcio chain, SCT, Rekor SET and identity', async () => {
    const oci = await signedImage();
    const result = await verifyImageSignatures(oci, IMAGE, keyless());
    expect(result).toMatchObject({
      verified: true,
      signatures: [{ verifier: 'keyless', subject: SUBJECT, issuer: ISSUER }],
    });
  });

  it('matches identities by RE2 expressions (unanchored, as cosign)', async () => {
    const oci = await signedImage();
    const regex = keyless({}, {
      subjectRegExp: '^https://github\\.com/org/',
      issuerRegExp: 'actions\\.githubusercontent',
    } as never);
    expect((await verifyImageSignatures(oci, IMAGE, regex)).verified).toBe(true);
  });

  it("matches subject and issuer as wildcards only when asked (Kyverno's classic keyless entries)", async () => {
    const oci = await signedImage();
    const wildcard = { subject: 'https://github.com/org/*@refs/heads/*', issuer: 'https://token.actions.*' };
    const exact = keyless({}, wildcard);
    expect((await verifyImageSignatures(oci, IMAGE, exact)).verified).toBe(false);
    const withWildcards = { ...exact, keyless: { ...exact.keyless!, wildcards: true } };
    expect((await verifyImageSignatures(oci, IMAGE, withWildcards)).verified).toBe(true);
    const other = keyless({}, { subject: 'https://github.com/other/*', issuer: ISSUER });
    const refused = await verifyImageSignatures(oci, IMAGE, {
      ...other,
      keyless: { ...other.keyless!, wildcards: true },
    });
    expect(refused.verified).toBe(false);
    expect(refused.reason).toContain('none of the expected identities matched');
  });

  it('refuses another subject or issuer', async () => {
    const oci = await signedImage();
    const subject = await verifyImageSignatures(
      oci,
      IMAGE,
      keyless({}, { subject: 'https://github.com/evil/app', issuer: ISSUER }),
    );
    expect(subject.verified).toBe(false);
    expect(subject.reason).toBe(
      `no matching signatures: none of the expected identities matched what was in the certificate, got subjects [${SUBJECT}] with issuer ${ISSUER}`,
    );
    const issuer = await verifyImageSignatures(
      oci,
      IMAGE,
      keyless({}, { subject: SUBJECT, issuer: 'https://accounts.google.com' }),
    );
    expect(issuer.verified).toBe(false);
  });

  it('checks Fulcio extensions by name or OID', async () => {
    const oci = await signedImage({ extensions: { [WORKFLOW_REPOSITORY]: 'org/app' } });
    const byName = keyless();
    byName.keyless!.extensions = { githubWorkflowRepository: 'org/*' };
    expect((await verifyImageSignatures(oci, IMAGE, byName)).verified).toBe(true);
    const byOid = keyless();
    byOid.keyless!.extensions = { [WORKFLOW_REPOSITORY]: 'org/other' };
    expect((await verifyImageSignatures(oci, IMAGE, byOid)).reason).toContain(
      'extension mismatch: expected org/other for key 1.3.6.1.4.1.57264.1.5, got org/app',
    );
  });

  it('refuses a certificate from another Fulcio', async () => {
    const oci = await signedImage();
    const other = await createTestTrustMaterial();
    const result = await verifyImageSignatures(
      oci,
      IMAGE,
      keyless({ keyless: { identities: [{ subject: SUBJECT }], roots: other.fulcioRootPem } }),
    );
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('Failed to verify certificate chain');
  });

  it('refuses a certificate expired at the verification time when the log is ignored', async () => {
    const oci = await signedImage({ rekor: false });
    const ignoring = keyless({ rekor: { ignoreTlog: true } });
    const now = await verifyImageSignatures(oci, IMAGE, ignoring);
    expect(now.reason).toBeUndefined();
    expect(now.verified).toBe(true);
    const later = await verifyImageSignatures(oci, IMAGE, ignoring, { now: () => Date.now() + 60 * 60 * 1000 });
    expect(later.verified).toBe(false);
    expect(later.reason).toContain('certificate is not valid or expired at the specified date');
  });

  it('checks validity at the Rekor integrated time, not now', async () => {
    const oci = await signedImage();
    const later = await verifyImageSignatures(oci, IMAGE, keyless(), { now: () => Date.now() + 60 * 60 * 1000 });
    expect(later.verified).toBe(true);
  });

  it('refuses a signature logged after its certificate expired', async () => {
    const late = await createTestTrustMaterial({ rekor: new Date(Date.now() + 60 * 60 * 1000) });
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const signer = await trust.keyless(SUBJECT, ISSUER);
    await cosignSign(oci, IMAGE, signer.privateKeyPem, { certificate: signer.certificatePem, rekorBundle: late.rekor });
    const result = await verifyImageSignatures(
      oci,
      IMAGE,
      keyless({ rekor: { ignoreTlog: false, publicKey: late.rekorPublicKeyPem } }),
    );
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('certificate is not valid or expired');
  });

  it('checks the SCT with the CT log key unless ignoreSCT', async () => {
    const oci = await signedImage();
    const otherCt = keyless({
      ctlog: { ignoreSCT: false, publicKey: (await createTestTrustMaterial()).ctlogPublicKeyPem },
    });
    const refused = await verifyImageSignatures(oci, IMAGE, otherCt);
    expect(refused.verified).toBe(false);
    expect(refused.reason).toContain('SCT');
    expect((await verifyImageSignatures(oci, IMAGE, keyless({ ctlog: { ignoreSCT: true } }))).verified).toBe(true);
  });

  it('accepts a timestamp authority time with the TSA chain', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const signer = await trust.keyless(SUBJECT, ISSUER);
    await cosignSign(oci, IMAGE, signer.privateKeyPem, { certificate: signer.certificatePem, tsa: trust.tsa });
    const verifier = keyless({ rekor: { ignoreTlog: true }, tsaCertChain: trust.tsaCertChainPem });
    // Verified an hour later: the certificate was valid at the timestamp.
    const result = await verifyImageSignatures(oci, IMAGE, verifier, { now: () => Date.now() + 60 * 60 * 1000 });
    expect(result.verified).toBe(true);
    const otherTsa = keyless({
      rekor: { ignoreTlog: true },
      tsaCertChain: (await createTestTrustMaterial()).tsaCertChainPem,
    });
    expect((await verifyImageSignatures(oci, IMAGE, otherTsa)).reason).toContain('timestamp');
  });

  it('refuses bad identity patterns and missing roots as policy errors', async () => {
    const oci = await signedImage();
    await expect(verifyImageSignatures(oci, IMAGE, keyless({}, { subjectRegExp: '(' } as never))).rejects.toMatchObject(
      {
        field: 'keyless.identities[0].subjectRegExp',
      },
    );
    await expect(
      verifyImageSignatures(oci, IMAGE, keyless({ keyless: { identities: [{ subject: SUBJECT }] } })),
    ).rejects.toMatchObject({ field: 'keyless.roots' });
  });
});

describe('cosign certificate signatures', () => {
  it('verifies with a given certificate and its chain', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const signer = await trust.keyless('mailto:dev@example.com', ISSUER);
    await cosignSign(oci, IMAGE, signer.privateKeyPem, { rekorBundle: trust.rekor });
    const base = {
      type: 'cosign' as const,
      rekor: { ignoreTlog: false, publicKey: trust.rekorPublicKeyPem },
      ctlog: { ignoreSCT: true },
    };
    const alone = await verifyImageSignatures(oci, IMAGE, { ...base, certificate: { cert: signer.certificatePem } });
    expect(alone).toMatchObject({ verified: true, signatures: [{ verifier: 'certificate', issuer: ISSUER }] });
    const chained = { ...base, certificate: { cert: signer.certificatePem, certChain: trust.fulcioRootPem } };
    expect((await verifyImageSignatures(oci, IMAGE, chained)).verified).toBe(true);
    const wrongChain = {
      ...base,
      certificate: { cert: signer.certificatePem, certChain: (await createTestTrustMaterial()).fulcioRootPem },
    };
    expect((await verifyImageSignatures(oci, IMAGE, wrongChain)).verified).toBe(false);
  });
});

describe('cosign keyless signatures against a Sigstore trusted root', () => {
  it('takes the Fulcio roots, Rekor and CT log keys from the trusted root', async () => {
    const root = await createSigstoreTestTrust();
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const keys = generateKeyPair('ecdsa-p256');
    const der = createPublicKey(keys.publicKeyPem).export({ format: 'der', type: 'spki' });
    const certificate = derToPem(await root.ca.issueCertificate(der, SUBJECT, ISSUER));
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { certificate, rekorBundle: root.tlog });
    const verifier: CosignVerifier = {
      type: 'cosign',
      keyless: { identities: [{ subject: SUBJECT, issuer: ISSUER }] },
      rekor: { ignoreTlog: false },
      ctlog: { ignoreSCT: false },
      trustedRoot: { trustedRootJson: root.trustedRootJson },
    };
    expect(await verifyImageSignatures(oci, IMAGE, verifier)).toMatchObject({
      verified: true,
      signatures: [{ subject: SUBJECT }],
    });
    const other = await createSigstoreTestTrust();
    const refused = await verifyImageSignatures(oci, IMAGE, {
      ...verifier,
      trustedRoot: { trustedRootJson: other.trustedRootJson },
    });
    expect(refused.verified).toBe(false);
    await expect(
      verifyImageSignatures(oci, IMAGE, { ...verifier, trustedRoot: { tuf: { mirror: 'https://tuf.example' } } }),
    ).rejects.toMatchObject({ field: 'trustedRoot' });
  });
});
