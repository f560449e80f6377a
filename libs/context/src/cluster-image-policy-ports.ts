/**
 * The registry side of ImageValidatingPolicies in the cluster (the engine's IvpolPorts): the same
 * OCI reader verifyImages rules use (egress guards, the client's caps, pull Secrets of the
 * controller namespace, cloud providers refused) and the process-wide verification cache. What the
 * cluster cannot honour yet fails closed, naming it: an attestor's `source.PullSecrets` (Secrets in
 * the resource's namespace) and `credentials.secrets` of a namespaced policy (Secrets in its own
 * namespace); the engine then answers the image check with an error, never a pass. A namespaced
 * policy reads registries anonymously: it never borrows the controller's default pull Secrets.
 */
import type { IvpolPorts, OciAccessRequest } from '@edict/cel-policies';
import type { OciReader, VerificationCache } from '@edict/engine';
import { sharedVerificationCache } from './cluster-context-loaders';
import type { ImageDataSource } from './image-data-source';

export class ClusterImagePolicyPorts {
  /** Undefined when the image source has no OCI reader: every verification then errors. */
  readonly ports?: IvpolPorts;

  constructor(images: ImageDataSource, cache: VerificationCache = sharedVerificationCache()) {
    const oci = images.oci?.bind(images);
    if (!oci) return;
    const trustedRoot = images.trustedRoot?.bind(images);
    this.ports = {
      oci: (access: OciAccessRequest): OciReader => {
        if ((access.pullSecrets?.length ?? 0) > 0) {
          throw new Error("attestor source.PullSecrets (Secrets in the resource's namespace) are not supported yet");
        }
        if (access.namespace !== undefined && (access.secrets?.length ?? 0) > 0) {
          throw new Error(
            'credentials.secrets of a namespaced policy (Secrets in its namespace) are not supported yet',
          );
        }
        const secrets = access.namespace !== undefined ? [] : access.secrets;
        return oci({
          ...(secrets ? { secrets } : {}),
          ...(access.allowInsecure ? { allowInsecure: true } : {}),
          ...(access.providers ? { providers: access.providers } : {}),
        });
      },
      cache,
      // The controller's TUF / trusted_root.json settings, as verifyImages rules get them.
      ...(trustedRoot ? { trustedRoot } : {}),
    };
  }
}
