import type { OciReader, TrustedRootSource, VerificationCache } from '@edict/image-verify';
import type { PolicyResponse } from '@edict/engine';
import type { JsonPatchOperation } from '@edict/engine';
import type { CelPolicyContext } from '../evaluate/input';

/** Which registry credentials a policy asks for (its `credentials` and its attestors' pull secrets). */
export interface OciAccessRequest {
  /** `credentials.secrets`: in Kyverno's own namespace, or a namespaced policy's namespace (`namespace`). */
  secrets?: readonly string[];
  /** Set for a namespaced policy: every Secret is read there and nowhere else. */
  namespace?: string;
  /** A cosign attestor's `source.PullSecrets`, read in `pullSecretsNamespace` (the resource's namespace). */
  pullSecrets?: readonly string[];
  pullSecretsNamespace?: string;
  /** credentials.allowInsecureRegistry. */
  allowInsecure?: boolean;
  /** credentials.providers (default, amazon, azure, google, github). */
  providers?: readonly string[];
}

/**
 * How an ImageValidatingPolicy reaches registries: the caller (admission, background scans, the
 * CLI) gives an OciReader per set of credentials, and optionally a verification cache.
 */
export interface IvpolPorts {
  oci(access: OciAccessRequest): OciReader;
  cache?: VerificationCache;
  /**
   * Sigstore's trusted root the controller is configured with (Kyverno's TUF settings), for Cosign
   * attestors that bring no roots, log keys or `tuf` of their own (keyless without roots, Rekor and
   * CT log checks, bundles), as classic verifyImages entries get it. Undefined (or resolving to
   * undefined): those attestors fail closed.
   */
  trustedRoot?(): Promise<TrustedRootSource | undefined>;
}

/** The ValidatingPolicy context (CEL library ports, exceptions, deadline...) plus the registry. */
export interface ImageValidatingPolicyContext extends CelPolicyContext {
  /** Absent: every image verification fails ("image verification is not configured"), never passes. */
  images?: IvpolPorts;
  /** At most this many matched images per resource and policy (default IVPOL_LIMITS.maxImages). */
  maxImages?: number;
  /** Shared by every policy of one request, so `required` sees what another policy verified. */
  verifications?: ImageVerificationRecord;
}

/** Bounds of one policy's image verification on one resource. */
export const IVPOL_LIMITS = {
  /** Images a policy may consider in one resource (after matchImageReferences). */
  maxImages: 64,
  /** Signature and attestation checks (calls × attestors) in one evaluation. */
  maxVerifications: 256,
} as const;

/**
 * The images verified in one request, by any policy (Kyverno's ImageVerificationResults): an
 * image `verified` when one check succeeded, `attempted` when checks ran and none succeeded.
 */
export class ImageVerificationRecord {
  private readonly outcomes = new Map<string, boolean>();

  record(image: string, verified: boolean): void {
    this.outcomes.set(image, this.outcomes.get(image) === true || verified);
  }

  status(image: string): { verified: boolean; attempted: boolean } {
    const outcome = this.outcomes.get(image);
    return { verified: outcome === true, attempted: outcome !== undefined };
  }
}

/** What one ImageValidatingPolicy answers for one resource (see evaluateImageValidatingPolicies). */
export interface ImageValidatingPolicyOutcome {
  /** undefined when the policy does not apply (matchConstraints, match conditions, namespace). */
  response: PolicyResponse | undefined;
  /** The images matchImageReferences selected (what `required` checks). */
  matchedImages: readonly string[];
}

/** mutateDigest's answer: JSON patches replacing tags by digests, and the policy's error if any image failed. */
export interface DigestMutation {
  patches: JsonPatchOperation[];
  /** The policy's response when it could not resolve an image (Kyverno's `mutateDigest` rule error). */
  response?: PolicyResponse;
}
