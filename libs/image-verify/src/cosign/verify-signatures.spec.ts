import { beforeEach, describe, expect, it } from 'vitest';
import { ImageVerificationError } from '../errors';
import type { CosignVerifier } from '../model';
import {
  cosignSign,
  createTestTrustMaterial,
  generateKeyPair,
  InMemoryOci,
  pushImage,
  testTrustMaterial,
} from '../testing';
import { verifyImageSignatures } from '../verify';

const REPO = 'registry.test/team/app';
const IMAGE = `${REPO}:v1`;

function keyVerifier(publicKeyPem: string, extra: Partial<CosignVerifier> = {}): CosignVerifier {
  return {
    type: 'cosign',
    publicKeys: [publicKeyPem],
    rekor: { ignoreTlog: true },
    ctlog: { ignoreSCT: true },
    ...extra,
  };
}

describe('cosign signatures with keys', () => {
  let oci: InMemoryOci;
  let digest: string;
  beforeEach(async () => {
    oci = new InMemoryOci();
    ({ digest } = await pushImage(oci, REPO, 'v1'));
  });

  it.each(['ecdsa-p256', 'ecdsa-p384', 'ecdsa-p521', 'rsa', 'ed25519'] as const)(
    'verifies a good %s signature',
    async (kind) => {
      const keys = generateKeyPair(kind);
      await cosignSign(oci, IMAGE, keys.privateKeyPem, { annotations: { env: 'prod' } });
      const result = await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem));
      expect(result).toMatchObject({ verified: true, digest, signatures: [{ verifier: 'publicKeys[0]' }] });
      expect(result.signatures[0].payload).toMatchObject({
        critical: { image: { 'docker-manifest-digest': digest }, type: 'cosign container image signature' },
        optional: { env: 'prod' },
      });
    },
  );

  it('refuses a signature by another key', async () => {
    const signer = generateKeyPair();
    await cosignSign(oci, IMAGE, signer.privateKeyPem);
    const result = await verifyImageSignatures(oci, IMAGE, keyVerifier(generateKeyPair().publicKeyPem));
    expect(result).toMatchObject({ verified: false, digest, signatures: [] });
    expect(result.reason).toMatch(/^no matching signatures: signature verification failed/);
  });

  it('accepts when any one of several keys verifies', async () => {
    const signer = generateKeyPair('ed25519');
    await cosignSign(oci, IMAGE, signer.privateKeyPem);
    const verifier = keyVerifier(generateKeyPair().publicKeyPem);
    verifier.publicKeys = [generateKeyPair().publicKeyPem, signer.publicKeyPem];
    const result = await verifyImageSignatures(oci, IMAGE, verifier);
    expect(result.signatures.map((s) => s.verifier)).toEqual(['publicKeys[1]']);
  });

  it('answers "no signatures found" for an unsigned image', async () => {
    const result = await verifyImageSignatures(oci, IMAGE, keyVerifier(generateKeyPair().publicKeyPem));
    expect(result).toEqual({ verified: false, digest, reason: 'no signatures found', signatures: [] });
  });

  it('refuses a signature whose claim names another digest', async () => {
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { claimDigest: `sha256:${'0'.repeat(64)}` });
    const result = await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem));
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('invalid or missing digest in claim');
  });

  it('refuses a payload altered after signing', async () => {
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem);
    const sig = await oci.getManifest(REPO, `${digest.replace(':', '-')}.sig`);
    const layer = (sig?.json.layers as Array<{ digest: string }>)[0];
    oci.tamperBlob(REPO, layer.digest, Buffer.from('{"critical":{}}'));
    const result = await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem));
    expect(result).toMatchObject({
      verified: false,
      reason: 'no matching signatures: payload does not match its digest',
    });
  });

  it('checks the annotations the policy requires', async () => {
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { annotations: { env: 'dev' } });
    const wrong = await verifyImageSignatures(
      oci,
      IMAGE,
      keyVerifier(keys.publicKeyPem, { annotations: { env: 'prod' } }),
    );
    expect(wrong).toMatchObject({
      verified: false,
      reason: 'no matching signatures: annotation value for env does not match',
    });
    const right = await verifyImageSignatures(
      oci,
      IMAGE,
      keyVerifier(keys.publicKeyPem, { annotations: { env: 'dev' } }),
    );
    expect(right.verified).toBe(true);
  });

  it('honours the hash algorithm of the signature', async () => {
    const keys = generateKeyPair('ecdsa-p384');
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { hashAlgorithm: 'sha384' });
    expect((await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem))).verified).toBe(false);
    const result = await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem, { hashAlgorithm: 'sha384' }));
    expect(result.verified).toBe(true);
  });

  it('finds signatures in the signature repository', async () => {
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { signatureRepository: 'registry.test/signatures' });
    const elsewhere = keyVerifier(keys.publicKeyPem, { signatureRepository: 'registry.test/signatures' });
    expect((await verifyImageSignatures(oci, IMAGE, elsewhere)).verified).toBe(true);
    expect((await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem))).reason).toBe(
      'no signatures found',
    );
  });

  it('verifies an image written by digest without resolving its tag', async () => {
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem);
    oci.calls.length = 0;
    const result = await verifyImageSignatures(oci, `${REPO}@${digest}`, keyVerifier(keys.publicKeyPem));
    expect(result.verified).toBe(true);
    expect(oci.calls.some((call) => call.startsWith('resolve'))).toBe(false);
  });

  it('throws ImageVerificationError naming the field for a bad key', async () => {
    const error = await verifyImageSignatures(
      oci,
      IMAGE,
      keyVerifier('-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----'),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImageVerificationError);
    expect((error as ImageVerificationError).field).toBe('publicKeys[0]');
  });

  it('throws ImageVerificationError when the registry fails or the image is missing', async () => {
    const keys = generateKeyPair();
    await expect(verifyImageSignatures(oci, `${REPO}:missing`, keyVerifier(keys.publicKeyPem))).rejects.toThrow(
      /image registry.test\/team\/app:missing not found/,
    );
    oci.failing = new Error('connection refused');
    await expect(verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem))).rejects.toThrow(
      new ImageVerificationError('failed to resolve registry.test/team/app:v1: connection refused'),
    );
  });
});

describe('cosign signatures as OCI 1.1 referrers (cosignOCI11)', () => {
  let oci: InMemoryOci;
  let digest: string;
  beforeEach(async () => {
    oci = new InMemoryOci();
    ({ digest } = await pushImage(oci, REPO, 'v1'));
  });

  it('writes the referrer as cosign does: artifact type, subject, no .sig tag', async () => {
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { oci11: true });
    expect(await oci.getManifest(REPO, `${digest.replace(':', '-')}.sig`)).toBeUndefined();
    const [referrer] = await oci.listReferrers(REPO, digest, 'application/vnd.dev.cosign.artifact.sig.v1+json');
    const manifest = await oci.getManifest(REPO, referrer!.digest);
    expect(manifest?.json).toMatchObject({
      artifactType: 'application/vnd.dev.cosign.artifact.sig.v1+json',
      config: { mediaType: 'application/vnd.dev.cosign.artifact.sig.v1+json' },
      subject: { digest },
      layers: [{ mediaType: 'application/vnd.dev.cosign.simplesigning.v1+json' }],
    });
  });

  it('verifies a referrer signature only when the policy asks for the OCI 1.1 layout', async () => {
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { oci11: true });
    const result = await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem, { oci11: true }));
    expect(result).toMatchObject({ verified: true, digest, signatures: [{ verifier: 'publicKeys[0]' }] });
    expect(await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem))).toMatchObject({
      verified: false,
      reason: 'no signatures found',
    });
  });

  it('falls back to the .sig tag when the referrer does not verify', async () => {
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, generateKeyPair().privateKeyPem, { oci11: true });
    await cosignSign(oci, IMAGE, keys.privateKeyPem);
    const result = await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem, { oci11: true }));
    expect(result.verified).toBe(true);
  });

  it('refuses a referrer signed by another key, naming both layouts', async () => {
    await cosignSign(oci, IMAGE, generateKeyPair().privateKeyPem, { oci11: true });
    const result = await verifyImageSignatures(
      oci,
      IMAGE,
      keyVerifier(generateKeyPair().publicKeyPem, { oci11: true }),
    );
    expect(result.verified).toBe(false);
    expect(result.reason).toMatch(/^no matching signatures: OCI 1.1 referrer: signature verification failed/);
  });

  it('takes the last signature referrer listed, as cosign does', async () => {
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, generateKeyPair().privateKeyPem, { oci11: true });
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { oci11: true });
    expect((await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem, { oci11: true }))).verified).toBe(
      true,
    );
    const first = new InMemoryOci();
    await pushImage(first, REPO, 'v1');
    await cosignSign(first, IMAGE, keys.privateKeyPem, { oci11: true });
    await cosignSign(first, IMAGE, generateKeyPair().privateKeyPem, { oci11: true });
    expect((await verifyImageSignatures(first, IMAGE, keyVerifier(keys.publicKeyPem, { oci11: true }))).verified).toBe(
      false,
    );
  });

  it('still fails on a registry error after the referrers lookup fails', async () => {
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { oci11: true });
    oci.failing = new Error('connection refused');
    await expect(
      verifyImageSignatures(oci, `${REPO}@${digest}`, keyVerifier(keys.publicKeyPem, { oci11: true })),
    ).rejects.toThrow(/connection refused/);
  });
});

describe('cosign key signatures with an RFC 3161 timestamp and no transparency log', () => {
  // The TSA's clock a little after now (its certificate starts now), at 120 ms: DER writes `.12Z`.
  const twoDigitFraction = () => new Date(Math.ceil(Date.now() / 1000) * 1000 + 1120);

  it.each([
    ['whole milliseconds', () => new Date(Math.ceil(Date.now() / 1000) * 1000 + 1123)],
    ['a genTime fraction of two digits', twoDigitFraction],
    ['a whole-second genTime', () => new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000)],
  ])('verifies with the TSA chain, the TSA writing %s', async (_, clock) => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const trust = await createTestTrustMaterial({ tsa: clock() });
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { tsa: trust.tsa });
    const result = await verifyImageSignatures(
      oci,
      IMAGE,
      keyVerifier(keys.publicKeyPem, { tsaCertChain: trust.tsaCertChainPem }),
    );
    expect(result.reason).toBeUndefined();
    expect(result.verified).toBe(true);
  });

  it("refuses the timestamp against another TSA's chain", async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const trust = await createTestTrustMaterial({ tsa: twoDigitFraction() });
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { tsa: trust.tsa });
    const other = (await createTestTrustMaterial()).tsaCertChainPem;
    const result = await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem, { tsaCertChain: other }));
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('timestamp');
  });
});

describe('cosign signatures with a Rekor bundle', () => {
  it('verifies the SET offline with the policy Rekor key, and refuses another log key', async () => {
    const oci = new InMemoryOci();
    const { digest } = await pushImage(oci, REPO, 'v1');
    const trust = await testTrustMaterial();
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { rekorBundle: true });
    const withLog = keyVerifier(keys.publicKeyPem, {
      rekor: { ignoreTlog: false, publicKey: trust.rekorPublicKeyPem },
    });
    expect(await verifyImageSignatures(oci, IMAGE, withLog)).toMatchObject({ verified: true, digest });

    const otherLog = keyVerifier(keys.publicKeyPem, {
      rekor: { ignoreTlog: false, publicKey: generateKeyPair().publicKeyPem },
    });
    const result = await verifyImageSignatures(oci, IMAGE, otherLog);
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('inclusion promise could not be verified');
  });

  it('requires a bundle unless ignoreTlog', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const trust = await testTrustMaterial();
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem);
    const withLog = keyVerifier(keys.publicKeyPem, {
      rekor: { ignoreTlog: false, publicKey: trust.rekorPublicKeyPem },
    });
    expect((await verifyImageSignatures(oci, IMAGE, withLog)).reason).toContain('signature has no Rekor bundle');
    expect((await verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem))).verified).toBe(true);
  });

  it('refuses a bundle logged for another signature', async () => {
    const oci = new InMemoryOci();
    const { digest } = await pushImage(oci, REPO, 'v1');
    const trust = await testTrustMaterial();
    const keys = generateKeyPair();
    await cosignSign(oci, IMAGE, keys.privateKeyPem, { rekorBundle: true });
    const other = new InMemoryOci();
    await pushImage(other, REPO, 'v1');
    await cosignSign(other, IMAGE, keys.privateKeyPem, { rekorBundle: true, annotations: { other: 'yes' } });
    // Graft the other signature's (valid) bundle onto this one.
    const tag = `${digest.replace(':', '-')}.sig`;
    const mine = await oci.getManifest(REPO, tag);
    const theirs = await other.getManifest(REPO, tag);
    const layers = mine?.json.layers as Array<{ annotations: Record<string, string> }>;
    layers[0].annotations['dev.sigstore.cosign/bundle'] = (theirs?.json.layers as typeof layers)[0].annotations[
      'dev.sigstore.cosign/bundle'
    ];
    await oci.pushManifest(REPO, tag, mine!.json, mine!.mediaType);
    const withLog = keyVerifier(keys.publicKeyPem, {
      rekor: { ignoreTlog: false, publicKey: trust.rekorPublicKeyPem },
    });
    const result = await verifyImageSignatures(oci, IMAGE, withLog);
    expect(result.verified).toBe(false);
    expect(result.reason).toMatch(/signature mismatch|digest mismatch/);
  });

  it('asks for the Rekor key when the log is checked', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, REPO, 'v1');
    const keys = generateKeyPair();
    await expect(
      verifyImageSignatures(oci, IMAGE, keyVerifier(keys.publicKeyPem, { rekor: { ignoreTlog: false } })),
    ).rejects.toMatchObject({ field: 'rekor.publicKey' });
  });
});
