import { describe, expect, it } from 'vitest';
import type { CosignVerifier, TrustedRootSource } from '@edict/image-verify';
import { readImageVerification, type Attestor } from './spec';
import { verifierFor, type TrustedRootLoader } from './verifier-spec';

const ROOT: TrustedRootSource = {
  trustedRootJson: '{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}',
};
const KEY = '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n';

/** A loader that counts its reads, so a spec can tell the root was not fetched when not needed. */
function loader(source: TrustedRootSource | undefined): TrustedRootLoader & { reads: number } {
  const read = Object.assign(
    () => {
      read.reads++;
      return Promise.resolve(source);
    },
    { reads: 0 },
  );
  return read;
}

async function cosignSpec(attestor: Attestor, type = 'Cosign', trustedRoot = loader(ROOT)) {
  const verification = readImageVerification({ type, imageReferences: ['*'] });
  const { spec } = await verifierFor(attestor, verification, false, {}, trustedRoot);
  return { spec: spec as CosignVerifier, reads: trustedRoot.reads };
}

describe('verifierFor and the controller trusted root', () => {
  it('gives keyless entries without roots the trusted root, with subject and issuer as wildcards', async () => {
    const { spec, reads } = await cosignSpec({ keyless: { subject: 'https://github.com/*', issuer: 'https://*' } });
    expect(spec.trustedRoot).toEqual(ROOT);
    expect(spec.keyless?.wildcards).toBe(true);
    expect(reads).toBe(1);
  });

  it('gives an attestation without attestors (implicit keyless entry) the trusted root', async () => {
    const verification = readImageVerification({ imageReferences: ['*'] });
    const trustedRoot = loader(ROOT);
    const { spec } = await verifierFor({}, verification, true, {}, trustedRoot);
    expect((spec as CosignVerifier).trustedRoot).toEqual(ROOT);
  });

  it('does not read the root when the entry brings its own roots and log keys', async () => {
    const { spec, reads } = await cosignSpec({
      keyless: {
        subject: 'me',
        roots: 'ROOTS',
        rekor: { url: 'https://rekor.example', pubkey: KEY },
        ctlog: { ignoreSCT: true },
      },
    });
    expect(spec.trustedRoot).toBeUndefined();
    expect(reads).toBe(0);
  });

  it('reads it for a key entry that checks the public Rekor without its key, and for bundles', async () => {
    expect((await cosignSpec({ keys: { publicKeys: KEY } })).spec.trustedRoot).toEqual(ROOT);
    const ignored = await cosignSpec({ keys: { publicKeys: KEY, rekor: { ignoreTlog: true } } });
    expect(ignored.reads).toBe(0);
    const bundle = await cosignSpec(
      { keyless: { subject: 'me', roots: 'R', rekor: { url: 'u', ignoreTlog: true }, ctlog: { ignoreSCT: true } } },
      'SigstoreBundle',
    );
    expect(bundle.spec.trustedRoot).toEqual(ROOT);
  });

  it('leaves the spec without a root when none is configured', async () => {
    const { spec, reads } = await cosignSpec({ keyless: { subject: 'me' } }, 'Cosign', loader(undefined));
    expect(reads).toBe(1);
    expect(spec.trustedRoot).toBeUndefined();
  });
});

describe('verifierFor and cosignOCI11', () => {
  it('asks image-verify for the OCI 1.1 layout only when the rule sets cosignOCI11', async () => {
    const attestor: Attestor = { keys: { publicKeys: KEY, rekor: { ignoreTlog: true } } };
    const on = readImageVerification({ imageReferences: ['*'], cosignOCI11: true });
    const off = readImageVerification({ imageReferences: ['*'] });
    expect(((await verifierFor(attestor, on, false, {})).spec as CosignVerifier).oci11).toBe(true);
    expect(((await verifierFor(attestor, off, false, {})).spec as CosignVerifier).oci11).toBeUndefined();
  });
});

describe('verifierFor and SigstoreBundle', () => {
  it("asks for no SCT, as Kyverno's classic bundle verifier; Cosign entries leave it to image-verify", async () => {
    const attestor: Attestor = { keyless: { subject: 'https://github.com/*', issuer: 'https://*' } };
    const { spec } = await cosignSpec(attestor, 'SigstoreBundle');
    expect(spec).toMatchObject({ bundle: true, bundleScts: false });
    expect((await cosignSpec(attestor)).spec.bundleScts).toBeUndefined();
  });
});
