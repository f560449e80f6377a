import { describe, expect, it } from 'vitest';
import { VerificationCache } from './cache/verification-cache';
import { ImageVerificationError } from './errors';
import type { CosignVerifier } from './model';
import { cosignSign, generateKeyPair, InMemoryOci, pushImage } from './testing';
import { verifyImageAttestations, verifyImageSignatures } from './verify';

const IMAGE = 'registry.test/app:v1';

describe('verifyImageSignatures', () => {
  it('remembers successes in the cache and asks the registry again for failures', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, 'registry.test/app', 'v1');
    const keys = generateKeyPair();
    const verifier: CosignVerifier = {
      type: 'cosign',
      publicKeys: [keys.publicKeyPem],
      rekor: { ignoreTlog: true },
      ctlog: { ignoreSCT: true },
    };
    const cache = new VerificationCache(10, 60_000);

    expect((await verifyImageSignatures(oci, IMAGE, verifier, { cache })).verified).toBe(false);
    await cosignSign(oci, IMAGE, keys.privateKeyPem);
    const first = await verifyImageSignatures(oci, IMAGE, verifier, { cache });
    expect(first.verified).toBe(true);
    oci.calls.length = 0;
    oci.failing = new Error('registry down');
    expect(await verifyImageSignatures(oci, IMAGE, verifier, { cache })).toEqual(first);
    expect(oci.calls).toEqual([]);
    // Another verifier is another entry.
    const other = { ...verifier, publicKeys: [generateKeyPair().publicKeyPem] };
    await expect(verifyImageSignatures(oci, IMAGE, other, { cache })).rejects.toThrow(/registry down/);
  });

  it('fails closed for verifier types not built here', async () => {
    const oci = new InMemoryOci();
    await expect(verifyImageSignatures(oci, IMAGE, { type: 'notary', certs: '' })).rejects.toThrow(
      ImageVerificationError,
    );
    await expect(
      verifyImageAttestations(oci, IMAGE, 'x', {
        type: 'cosign',
        bundle: true,
        rekor: { ignoreTlog: true },
        ctlog: { ignoreSCT: true },
      }),
    ).rejects.toThrow(/Sigstore bundle verification is not built yet/);
  });

  it('stops when the deadline has passed', async () => {
    const oci = new InMemoryOci();
    await pushImage(oci, 'registry.test/app', 'v1');
    const verifier: CosignVerifier = {
      type: 'cosign',
      publicKeys: [generateKeyPair().publicKeyPem],
      rekor: { ignoreTlog: true },
      ctlog: { ignoreSCT: true },
    };
    await expect(verifyImageSignatures(oci, IMAGE, verifier, { deadline: Date.now() - 1 })).rejects.toThrow(
      /ran out of time/,
    );
  });
});
