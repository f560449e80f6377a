import { describe, expect, it, beforeAll } from 'vitest';
import {
  ImageVerificationError,
  verifyImageAttestations,
  verifyImageSignatures,
  type NotaryVerifier,
} from '@edict/image-verify';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { initializeTSA } from '@sigstore/mock';
import {
  createTestCa,
  rfc3161Timestamp,
  EKU_SERVER_AUTH,
  InMemoryOci,
  notationAttest,
  notationSign,
  pushImage,
  type TestCa,
  type TestCertificate,
} from '@edict/image-verify/testing';

const REPO = '127.0.0.1:5000/app';
const DAY = 86_400_000;

describe('Notary signatures (notation JWS and COSE envelopes as OCI referrers)', () => {
  let root: TestCa;
  let leaf: TestCertificate;
  let chainPem: string;
  let verifier: NotaryVerifier;

  beforeAll(async () => {
    root = await createTestCa();
    leaf = await root.issue({ commonName: 'signer' });
    chainPem = leaf.certPem + root.certPem;
    verifier = { type: 'notary', certs: root.certPem };
  });

  async function signedImage(options: Partial<Parameters<typeof notationSign>[2]> = {}, tag = 'v1') {
    const oci = new InMemoryOci();
    const image = await pushImage(oci, REPO, tag);
    await notationSign(oci, `${REPO}:${tag}`, { keyPem: leaf.keyPem, certChainPem: chainPem, ...options });
    return { oci, image, ref: `${REPO}:${tag}` };
  }

  it('verifies a JWS signature chaining to the trusted root and answers the manifest digest', async () => {
    const { oci, image, ref } = await signedImage();
    const result = await verifyImageSignatures(oci, ref, verifier);
    expect(result).toMatchObject({ verified: true, digest: image.digest });
    expect(result.signatures[0].subject).toContain('CN=signer');
    expect(result.signatures[0].payload).toMatchObject({ targetArtifact: { digest: image.digest } });
  });

  it('verifies a COSE_Sign1 signature', async () => {
    const { oci, image, ref } = await signedImage({ cose: true });
    expect(await verifyImageSignatures(oci, ref, verifier)).toMatchObject({ verified: true, digest: image.digest });
  });

  it('verifies an RSA (PS256) signature through an intermediate CA, trusting the root only', async () => {
    const intermediate = await root.issueCa({ commonName: 'intermediate' });
    const rsaLeaf = await intermediate.issue({ keyKind: 'rsa-2048', commonName: 'rsa signer' });
    const { oci, ref } = await signedImage({
      keyPem: rsaLeaf.keyPem,
      certChainPem: rsaLeaf.certPem + intermediate.certPem + root.certPem,
    });
    expect(await verifyImageSignatures(oci, ref, verifier)).toMatchObject({ verified: true });
  });

  it('trusts a signature whose leaf certificate is the one given in certs', async () => {
    const { oci, ref } = await signedImage();
    expect(await verifyImageSignatures(oci, ref, { type: 'notary', certs: leaf.certPem })).toMatchObject({
      verified: true,
    });
  });

  it('does not verify a signature from a chain outside the trust store', async () => {
    const { oci, ref } = await signedImage();
    const other = await createTestCa({ commonName: 'other root' });
    const result = await verifyImageSignatures(oci, ref, { type: 'notary', certs: other.certPem });
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('not produced by a trusted signer');
  });

  it('does not verify a signature made for another digest (tampered target)', async () => {
    const { oci, ref } = await signedImage({ target: { digest: `sha256:${'ab'.repeat(32)}` } });
    const result = await verifyImageSignatures(oci, ref, verifier);
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('integrity check failed');
  });

  it('does not verify an envelope whose payload was changed after signing', async () => {
    const { oci, image, ref } = await signedImage();
    const [signature] = await oci.listReferrers(REPO, image.digest);
    const manifest = await oci.getManifest(REPO, signature.digest);
    const layer = (manifest!.json.layers as Array<{ digest: string }>)[0];
    const envelope = JSON.parse(new TextDecoder().decode(await oci.getBlob(REPO, layer.digest)));
    envelope.payload = Buffer.from(JSON.stringify({ targetArtifact: { digest: 'sha256:00' } })).toString('base64url');
    oci.tamperBlob(REPO, layer.digest, new TextEncoder().encode(JSON.stringify(envelope)));
    const result = await verifyImageSignatures(oci, ref, verifier);
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('integrity check failed');
  });

  it('does not verify when the signing certificate has expired (no timestamp authority)', async () => {
    const expired = await root.issue({
      notBefore: new Date(Date.now() - 30 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    const { oci, ref } = await signedImage({
      keyPem: expired.keyPem,
      certChainPem: expired.certPem + root.certPem,
      signingTime: new Date(Date.now() - 10 * DAY),
    });
    const result = await verifyImageSignatures(oci, ref, verifier);
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('is not valid anymore, it was expired');
  });

  it('does not verify a signature past its signed expiry', async () => {
    const { oci, ref } = await signedImage({
      signingTime: new Date(Date.now() - 2 * DAY),
      expiry: new Date(Date.now() - DAY),
    });
    const result = await verifyImageSignatures(oci, ref, verifier);
    expect(result.verified).toBe(false);
    expect(result.reason).toContain('digital signature has expired');
  });

  it('answers not verified, naming the artifact, when the image has no notation signature', async () => {
    const oci = new InMemoryOci();
    const image = await pushImage(oci, REPO, 'unsigned');
    const result = await verifyImageSignatures(oci, `${REPO}:unsigned`, verifier);
    expect(result).toMatchObject({ verified: false, digest: image.digest });
    expect(result.reason).toContain('no signature is associated');
  });

  it('refuses critical headers it does not understand and verification plugins', async () => {
    const { oci, ref } = await signedImage({ extraCritical: { 'io.example.policy': 'x' } });
    expect((await verifyImageSignatures(oci, ref, verifier)).reason).toContain(
      'critical header "io.example.policy" is not understood',
    );
    const plugin = await signedImage(
      { extraCritical: { 'io.cncf.notary.verificationPlugin': 'com.example.plugin' } },
      'v2',
    );
    expect((await verifyImageSignatures(plugin.oci, plugin.ref, verifier)).reason).toContain('verification plugin');
  });

  it('refuses a signing certificate with a TLS extended key usage', async () => {
    const tls = await root.issue({ extendedKeyUsages: [EKU_SERVER_AUTH] });
    const { oci, ref } = await signedImage({ keyPem: tls.keyPem, certChainPem: tls.certPem + root.certPem });
    expect((await verifyImageSignatures(oci, ref, verifier)).reason).toContain(
      `extended key usage ${EKU_SERVER_AUTH} is not allowed`,
    );
  });

  it('fails closed when revocation would need a CRL endpoint', async () => {
    const revocable = await root.issue({ crlDistributionPoint: 'http://crl.example.com/ca.crl' });
    const { oci, ref } = await signedImage({
      keyPem: revocable.keyPem,
      certChainPem: revocable.certPem + root.certPem,
    });
    expect((await verifyImageSignatures(oci, ref, verifier)).reason).toContain('revocation status');
  });

  it('refuses the signingAuthority scheme, which needs a trust store kind the attestor does not configure', async () => {
    const { oci, ref } = await signedImage({ scheme: 'notary.x509.signingAuthority', cose: true });
    expect((await verifyImageSignatures(oci, ref, verifier)).reason).toContain('needs a signingAuthority trust store');
  });

  it('refuses a chain that does not end with a root certificate', async () => {
    const { oci, ref } = await signedImage({ certChainPem: leaf.certPem });
    expect((await verifyImageSignatures(oci, ref, { type: 'notary', certs: leaf.certPem })).reason).toContain(
      'is not self-signed',
    );
  });

  it('is an error, naming the field, when certs holds no certificate', async () => {
    const { oci, ref } = await signedImage();
    await expect(verifyImageSignatures(oci, ref, { type: 'notary', certs: 'not a pem' })).rejects.toThrow(
      ImageVerificationError,
    );
    await expect(verifyImageSignatures(oci, ref, { type: 'notary', certs: 'not a pem' })).rejects.toThrow(/^certs: /);
  });

  it('is an error when the deadline has passed before the registry is asked', async () => {
    const { oci, ref } = await signedImage();
    await expect(verifyImageSignatures(oci, ref, verifier, { deadline: 1_000, now: () => 2_000 })).rejects.toThrow(
      /ran out of time/,
    );
  });

  it('is an error when the image has more referrers than Kyverno allows (50)', async () => {
    const { oci, image, ref } = await signedImage();
    for (let i = 0; i < 50; i++) {
      const manifest = {
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        artifactType: 'application/x-junk',
        layers: [],
        n: i,
      };
      await oci.pushReferrer(REPO, image.digest, manifest, 'application/vnd.oci.image.manifest.v1+json');
    }
    await expect(verifyImageSignatures(oci, ref, verifier)).rejects.toThrow(
      /too many referrers found, max limit is 50/,
    );
  });

  it('is an error when the registry is down', async () => {
    const { oci, ref } = await signedImage();
    oci.failing = new Error('connection refused');
    await expect(verifyImageSignatures(oci, ref, verifier)).rejects.toThrow(/connection refused/);
  });
});

describe('Notary timestamp countersignatures (tsaCerts)', () => {
  it('verifies a signature countersigned by a trusted TSA, and requires the countersignature when tsaCerts are given', async () => {
    const tsa = await initializeTSA(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }));
    const tsaRootPem = pem(tsa.rootCertificate);
    const root = await createTestCa();
    const leaf = await root.issue({});
    const chain = leaf.certPem + root.certPem;
    const verifier: NotaryVerifier = { type: 'notary', certs: root.certPem, tsaCerts: tsaRootPem };
    const stamp = (signature: Uint8Array, hash: string) =>
      rfc3161Timestamp(tsa, createHash(hash).update(signature).digest());

    for (const cose of [false, true]) {
      const oci = new InMemoryOci();
      await pushImage(oci, REPO, 'v1');
      await notationSign(oci, `${REPO}:v1`, { keyPem: leaf.keyPem, certChainPem: chain, cose, timestamp: stamp });
      expect(await verifyImageSignatures(oci, `${REPO}:v1`, verifier)).toMatchObject({ verified: true });
      const otherTsa = await initializeTSA(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }));
      const untrusted = await verifyImageSignatures(oci, `${REPO}:v1`, {
        ...verifier,
        tsaCerts: pem(otherTsa.rootCertificate),
      });
      expect(untrusted.verified).toBe(false);
      expect(untrusted.reason).toContain('timestamp countersignature');
    }

    const unstamped = new InMemoryOci();
    await pushImage(unstamped, REPO, 'v1');
    await notationSign(unstamped, `${REPO}:v1`, { keyPem: leaf.keyPem, certChainPem: chain });
    expect((await verifyImageSignatures(unstamped, `${REPO}:v1`, verifier)).reason).toContain(
      'no timestamp countersignature',
    );

    const wrongImprint = new InMemoryOci();
    await pushImage(wrongImprint, REPO, 'v1');
    await notationSign(wrongImprint, `${REPO}:v1`, {
      keyPem: leaf.keyPem,
      certChainPem: chain,
      timestamp: () => rfc3161Timestamp(tsa, createHash('sha256').update('something else').digest()),
    });
    expect((await verifyImageSignatures(wrongImprint, `${REPO}:v1`, verifier)).reason).toContain(
      'timestamp countersignature does not verify',
    );
  });
});

function pem(der: Uint8Array): string {
  return `-----BEGIN CERTIFICATE-----\n${Buffer.from(der).toString('base64')}\n-----END CERTIFICATE-----\n`;
}

describe('Notary attestations (signed referrers of an artifact type)', () => {
  it('answers the verified referrer as a statement with its type and JSON payload as predicate', async () => {
    const root = await createTestCa();
    const leaf = await root.issue({});
    const oci = new InMemoryOci();
    const image = await pushImage(oci, REPO, 'v1');
    const type = 'application/vnd.cyclonedx+json';
    await notationAttest(
      oci,
      `${REPO}:v1`,
      type,
      { bomFormat: 'CycloneDX', components: [] },
      { keyPem: leaf.keyPem, certChainPem: leaf.certPem + root.certPem },
    );
    const result = await verifyImageAttestations(oci, `${REPO}:v1`, type, { type: 'notary', certs: root.certPem });
    expect(result).toMatchObject({ verified: true, digest: image.digest });
    expect(result.statements[0]).toMatchObject({ type, artifactType: type, predicate: { bomFormat: 'CycloneDX' } });

    const other = await createTestCa({ commonName: 'other' });
    const untrusted = await verifyImageAttestations(oci, `${REPO}:v1`, type, { type: 'notary', certs: other.certPem });
    expect(untrusted).toMatchObject({ verified: false, statements: [] });
    const missing = await verifyImageAttestations(oci, `${REPO}:v1`, 'application/spdx+json', {
      type: 'notary',
      certs: root.certPem,
    });
    expect(missing.reason).toContain('no attestations found for type: application/spdx+json');
  });
});
