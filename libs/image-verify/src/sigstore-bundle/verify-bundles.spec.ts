import { beforeAll, describe, expect, it } from 'vitest';
import {
  ImageVerificationError,
  verifyImageAttestations,
  verifyImageSignatures,
  type CosignVerifier,
} from '@edict/image-verify';
import {
  createSigstoreTestTrust,
  generateKeyPair,
  InMemoryOci,
  pushImage,
  sigstoreBundleSign,
  type SigstoreTestTrust,
} from '@edict/image-verify/testing';

const REPO = '127.0.0.1:5000/app';
const SUBJECT = 'https://github.com/edict/app/.github/workflows/release.yml@refs/heads/main';
const ISSUER = 'https://token.actions.githubusercontent.com';

describe('Sigstore bundles as OCI referrers (Kyverno type SigstoreBundle)', () => {
  let trust: SigstoreTestTrust;
  let keyless: CosignVerifier;

  beforeAll(async () => {
    trust = await createSigstoreTestTrust();
    keyless = {
      type: 'cosign',
      bundle: true,
      keyless: { identities: [{ subject: SUBJECT, issuer: ISSUER }] },
      rekor: { ignoreTlog: false },
      ctlog: { ignoreSCT: false },
      trustedRoot: { trustedRootJson: trust.trustedRootJson },
    };
  });

  async function signed(options: Parameters<typeof sigstoreBundleSign>[3] = {}) {
    const oci = new InMemoryOci();
    const image = await pushImage(oci, REPO, 'v1');
    await sigstoreBundleSign(oci, `${REPO}:v1`, trust, { subject: SUBJECT, issuer: ISSUER, ...options });
    return { oci, image, ref: `${REPO}:v1` };
  }

  it('verifies a keyless DSSE bundle (Fulcio certificate with SCT, Rekor entry) against the trusted root', async () => {
    const { oci, image, ref } = await signed();
    const result = await verifyImageSignatures(oci, ref, keyless);
    expect(result).toMatchObject({ verified: true, digest: image.digest });
    expect(result.signatures[0]).toMatchObject({ subject: SUBJECT, issuer: ISSUER });
  });

  it("needs no SCT for Kyverno's classic SigstoreBundle: a trusted root without CT logs verifies", async () => {
    const { oci, ref } = await signed();
    const root = JSON.parse(trust.trustedRootJson) as { ctlogs: unknown[] };
    const withoutCtlogs = { trustedRootJson: JSON.stringify({ ...root, ctlogs: [] }) };
    for (const ignoreSCT of [false, true]) {
      const classic: CosignVerifier = {
        ...keyless,
        bundleScts: false,
        ctlog: { ignoreSCT },
        trustedRoot: withoutCtlogs,
      };
      const result = await verifyImageSignatures(oci, ref, classic);
      expect(result.reason).toBeUndefined();
      expect(result.verified).toBe(true);
    }
    // cosign's rule (ImageValidatingPolicy): the SCT is checked unless ignored.
    await expect(verifyImageSignatures(oci, ref, { ...keyless, trustedRoot: withoutCtlogs })).rejects.toThrow(
      /a CT log key \(or ctlog.ignoreSCT\)/,
    );
    const ignored = { ...keyless, ctlog: { ignoreSCT: true }, trustedRoot: withoutCtlogs };
    expect((await verifyImageSignatures(oci, ref, ignored)).verified).toBe(true);
  });

  it('verifies a message-signature bundle over the manifest and identities given as Go regexps', async () => {
    const { oci, ref } = await signed({ messageSignature: true, timestamp: true });
    const byRegexp: CosignVerifier = {
      ...keyless,
      keyless: { identities: [{ subjectRegExp: '^https://github\\.com/edict/.*', issuerRegExp: 'githubusercontent' }] },
    };
    const result = await verifyImageSignatures(oci, ref, byRegexp);
    expect(result.reason).toBeUndefined();
    expect(result).toMatchObject({ verified: true });
  });

  it('does not verify when the certificate identity does not match', async () => {
    const { oci, ref } = await signed();
    const other: CosignVerifier = {
      ...keyless,
      keyless: { identities: [{ subject: 'https://github.com/evil/app', issuer: ISSUER }] },
    };
    const result = await verifyImageSignatures(oci, ref, other);
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('does not match');
    const wrongIssuer: CosignVerifier = {
      ...keyless,
      keyless: { identities: [{ subject: SUBJECT, issuer: 'https://accounts.google.com' }] },
    };
    expect((await verifyImageSignatures(oci, ref, wrongIssuer)).verified).toBe(false);
  });

  it('does not verify against another trusted root', async () => {
    const { oci, ref } = await signed();
    const otherTrust = await createSigstoreTestTrust();
    const result = await verifyImageSignatures(oci, ref, {
      ...keyless,
      trustedRoot: { trustedRootJson: otherTrust.trustedRootJson },
    });
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('no matching signatures found');
  });

  it('does not verify a bundle whose statement names another digest (tampered subject)', async () => {
    const { oci, ref } = await signed({ subjectDigest: `sha256:${'cd'.repeat(32)}` });
    const result = await verifyImageSignatures(oci, ref, keyless);
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('no subject of the in-toto statement has the image digest');
  });

  it('does not verify a bundle whose signature was changed', async () => {
    const { oci, image, ref } = await signed();
    const [referrer] = await oci.listReferrers(REPO, image.digest);
    const manifest = await oci.getManifest(REPO, referrer.digest);
    const layer = (manifest!.json.layers as Array<{ digest: string }>)[0];
    const bundle = JSON.parse(new TextDecoder().decode(await oci.getBlob(REPO, layer.digest)));
    const statement = JSON.parse(Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString());
    statement.predicate = { tampered: true };
    bundle.dsseEnvelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    oci.tamperBlob(REPO, layer.digest, new TextEncoder().encode(JSON.stringify(bundle)));
    expect((await verifyImageSignatures(oci, ref, keyless)).verified).toBe(false);
  });

  it('requires a transparency log entry unless rekor.ignoreTlog', async () => {
    const { oci, ref } = await signed({ tlog: false, timestamp: true });
    const result = await verifyImageSignatures(oci, ref, keyless);
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('tlog');
    expect(await verifyImageSignatures(oci, ref, { ...keyless, rekor: { ignoreTlog: true } })).toMatchObject({
      verified: true,
    });
  });

  it('verifies a key-signed bundle with the policy key, not with another key', async () => {
    const keys = generateKeyPair();
    const { oci, ref } = await signed({ privateKeyPem: keys.privateKeyPem, tlog: false });
    const byKey: CosignVerifier = {
      type: 'cosign',
      bundle: true,
      publicKeys: [keys.publicKeyPem],
      rekor: { ignoreTlog: true },
      ctlog: { ignoreSCT: true },
    };
    expect(await verifyImageSignatures(oci, ref, byKey)).toMatchObject({ verified: true });
    const otherKey: CosignVerifier = { ...byKey, publicKeys: [generateKeyPair().publicKeyPem] };
    expect((await verifyImageSignatures(oci, ref, otherKey)).verified).toBe(false);
  });

  it("verifies with the policy's own Fulcio root, Rekor and CT log keys instead of a trusted root", async () => {
    const { oci, ref } = await signed({ timestamp: true });
    const spkiPem = (der: Uint8Array) =>
      `-----BEGIN PUBLIC KEY-----\n${Buffer.from(der).toString('base64')}\n-----END PUBLIC KEY-----\n`;
    const certPem = (der: Uint8Array) =>
      `-----BEGIN CERTIFICATE-----\n${Buffer.from(der).toString('base64')}\n-----END CERTIFICATE-----\n`;
    const custom: CosignVerifier = {
      ...keyless,
      trustedRoot: undefined,
      keyless: { identities: [{ subject: SUBJECT, issuer: ISSUER }], roots: certPem(trust.ca.rootCertificate) },
      rekor: { ignoreTlog: false, publicKey: spkiPem(trust.tlog.publicKey), url: 'https://rekor.edict.test' },
      ctlog: { ignoreSCT: false, publicKey: spkiPem(trust.ctlog.publicKey) },
      tsaCertChain: certPem(trust.tsa.intCertificate) + certPem(trust.tsa.rootCertificate),
    };
    const result = await verifyImageSignatures(oci, ref, custom);
    expect(result.reason).toBeUndefined();
    expect(result).toMatchObject({ verified: true });
    const otherTrust = await createSigstoreTestTrust();
    const wrongRekor = { ...custom, rekor: { ...custom.rekor, publicKey: spkiPem(otherTrust.tlog.publicKey) } };
    expect((await verifyImageSignatures(oci, ref, wrongRekor)).verified).toBe(false);
    await expect(verifyImageSignatures(oci, ref, { ...custom, ctlog: { ignoreSCT: false } })).rejects.toThrow(
      /a CT log key \(or ctlog.ignoreSCT\)/,
    );
    const otherCtlog = { ...custom, ctlog: { ignoreSCT: false, publicKey: spkiPem(otherTrust.ctlog.publicKey) } };
    expect((await verifyImageSignatures(oci, ref, otherCtlog)).verified).toBe(false);
    // Kyverno's classic SigstoreBundle: SCTs neither required nor checked, no CT log key needed, and one
    // that did not issue the certificate's SCT changes nothing.
    const classic = { ...custom, bundleScts: false, ctlog: { ignoreSCT: false } };
    expect(await verifyImageSignatures(oci, ref, classic)).toMatchObject({ verified: true });
    const classicOther = { ...otherCtlog, bundleScts: false };
    expect(await verifyImageSignatures(oci, ref, classicOther)).toMatchObject({ verified: true });
  });

  it('answers not verified when no bundle is attached', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const result = await verifyImageSignatures(oci, `${REPO}:v1`, keyless);
    expect(result).toMatchObject({ verified: false });
    expect(result.reason).toContain('no Sigstore bundle is attached');
  });

  it('is an error naming the field when the trusted root is missing, a TUF source is unresolved, or the root is invalid', async () => {
    const { oci, ref } = await signed();
    await expect(verifyImageSignatures(oci, ref, { ...keyless, trustedRoot: undefined })).rejects.toThrow(
      /^trustedRoot: .*needs a trusted root/,
    );
    await expect(
      verifyImageSignatures(oci, ref, { ...keyless, trustedRoot: { tuf: { mirror: 'https://tuf.example.com' } } }),
    ).rejects.toThrow(/must be resolved/);
    await expect(
      verifyImageSignatures(oci, ref, { ...keyless, trustedRoot: { trustedRootJson: '{"mediaType":"text/plain"}' } }),
    ).rejects.toThrow(ImageVerificationError);
    await expect(
      verifyImageSignatures(oci, ref, { ...keyless, keyless: { identities: [{ subject: SUBJECT }] } }),
    ).rejects.toThrow(/issuer criteria/);
  });

  it('answers the verified in-toto statements of the predicate type as attestations', async () => {
    const { oci, image, ref } = await signed({
      predicateType: 'https://slsa.dev/provenance/v1',
      predicate: { buildType: 'edict' },
    });
    await sigstoreBundleSign(oci, ref, trust, {
      subject: SUBJECT,
      issuer: ISSUER,
      predicateType: 'https://spdx.dev/Document',
      predicate: { spdxVersion: 'SPDX-2.3' },
    });
    const result = await verifyImageAttestations(oci, ref, 'https://slsa.dev/provenance/v1', keyless);
    expect(result).toMatchObject({ verified: true, digest: image.digest });
    expect(result.statements).toHaveLength(1);
    expect(result.statements[0]).toMatchObject({
      type: 'https://slsa.dev/provenance/v1',
      predicate: { buildType: 'edict' },
      subject: [{ digest: { sha256: image.digest.slice(7) } }],
    });
    const none = await verifyImageAttestations(oci, ref, 'https://example.com/other', keyless);
    expect(none).toMatchObject({ verified: false, statements: [] });
  });
});
