import { VerificationCache } from '@edict/image-verify';
import { createTestCa, InMemoryOci, notationSign, pushImage, type TestCa } from '@edict/image-verify/testing';
import type { ContextLoaders } from '../core/loaders';

/** A registry in memory holding a notation-signed image and an unsigned one, for verifyImages specs. */
export interface SignedImageRegistry {
  readonly oci: InMemoryOci;
  /** The CA the signed image's certificate chains to (a verifyImages Notary `certificates.cert`). */
  readonly root: TestCa;
  /** `repo:signed` and `repo:unsigned`, with their manifest digests. */
  readonly signed: { readonly image: string; readonly digest: string };
  readonly unsigned: { readonly image: string; readonly digest: string };
  /** Context loaders whose registry access is this registry (any credentials). */
  readonly loaders: ContextLoaders;
}

export async function signedImageRegistry(repo = 'registry.local/team/app'): Promise<SignedImageRegistry> {
  const oci = new InMemoryOci();
  const root = await createTestCa();
  const leaf = await root.issue({ commonName: 'release signer' });
  const signed = await pushImage(oci, repo, 'signed');
  const unsigned = await pushImage(oci, repo, 'unsigned');
  await notationSign(oci, `${repo}:signed`, { keyPem: leaf.keyPem, certChainPem: leaf.certPem + root.certPem });
  return {
    oci,
    root,
    signed: { image: `${repo}:signed`, digest: signed.digest },
    unsigned: { image: `${repo}:unsigned`, digest: unsigned.digest },
    loaders: {
      configMap: () => undefined,
      apiCall: () => undefined,
      globalReference: () => undefined,
      imageRegistry: () => undefined,
      imageVerification: { oci: () => oci, cache: new VerificationCache(100, 60_000) },
    },
  };
}
