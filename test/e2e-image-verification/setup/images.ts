/**
 * The images the local twins verify, pushed to the run's registry. Repositories and tags follow the
 * public images of Kyverno's suite (ghcr.io/kyverno/test-verify-image:signed, ...), so a twin reads
 * like the test it stands for; what each carries (signatures, attestations) is made by sign-images.ts.
 */

export interface TestImage {
  /** `repository` below the registry host. */
  readonly repository: string;
  readonly tag: string;
  /** `os/architecture` of its single manifest (default linux/amd64). */
  readonly platform?: string;
  /** Another entry whose manifest this tag points at (same digest, so the same signatures). */
  readonly sameAs?: string;
}

export const TEST_IMAGES = {
  signed: { repository: 'kyverno/test-verify-image', tag: 'signed' },
  unsigned: { repository: 'kyverno/test-verify-image', tag: 'unsigned' },
  signedBySomeoneElse: { repository: 'kyverno/test-verify-image', tag: 'signed-by-someone-else' },
  signedKeyless: { repository: 'kyverno/test-verify-image', tag: 'signed-keyless' },
  tsa: { repository: 'kyverno/test-verify-image', tag: 'tsa' },
  cosignOci11: { repository: 'kyverno/test-verify-image', tag: 'cosign-oci11' },
  latest: { repository: 'kyverno/test-verify-image', tag: 'latest' },
  rollback1: { repository: 'kyverno/test-verify-image-rollback', tag: 'signed-1' },
  rollback2: { repository: 'kyverno/test-verify-image-rollback', tag: 'signed-2' },
  zulu: { repository: 'kyverno/zulu', tag: 'v0.0.14' },
  zuluLatest: { repository: 'kyverno/zulu', tag: 'latest', sameAs: 'zulu' },
  kyvernoLatest: { repository: 'kyverno/kyverno', tag: 'latest' },
  cosignTool: { repository: 'sigstore/cosign/cosign', tag: 'v2' },
  customSigstore: { repository: 'ttl-sh/custom-sigstore', tag: '1h' },
  artifactAttestation: { repository: 'edict-e2e/artifact-attestation-example', tag: 'artifact-attestation' },
  signingDemo: { repository: 'edict-e2e/github-signing-demo', tag: 'main' },
  amd64: { repository: 'library/busybox', tag: 'amd64', platform: 'linux/amd64' },
  arm64: { repository: 'library/busybox', tag: 'arm64', platform: 'linux/arm64' },
} as const satisfies Record<string, TestImage>;

export type TestImageName = keyof typeof TEST_IMAGES;

/** What the twins read as `$values.images.<name>`. */
export interface PushedImage {
  /** `host/repository:tag`, as a Pod names it. */
  readonly ref: string;
  /** The image manifest's digest. */
  readonly digest: string;
  /** `host/repository:tag@digest`: what digest mutation makes of `ref`. */
  readonly pinned: string;
  /** `host/repository@digest`: the key of the verify-images annotation. */
  readonly byDigest: string;
}
