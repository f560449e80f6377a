/**
 * The registry side of ImageValidatingPolicies in the cluster (the engine's IvpolPorts): the same
 * OCI reader verifyImages rules use (egress guards, the client's caps, pull Secrets of the
 * controller namespace, cloud providers refused) and the process-wide verification cache. What the
 * cluster cannot honour yet fails closed, naming it: an attestor's `source.PullSecrets` (Secrets in
 * the resource's namespace), `credentials.secrets` of a namespaced policy (Secrets in its own
 * namespace, the only one it may name) and a cluster policy's `<namespace>/<name>` outside the
 * controller's namespace; the engine then answers the image check with an error, never a pass. A
 * namespaced policy reads registries anonymously: it never borrows the controller's default pull
 * Secrets. The controller's Sigstore trusted root is handed on for keyless and bundle checks.
 */
import type { IvpolPorts, OciAccessRequest } from '@edict/cel-policies';
import type { OciReader, VerificationCache } from '@edict/engine';
import { sharedVerificationCache } from './cluster-context-loaders';
import type { ImageDataSource } from './image-data-source';

export class ClusterImagePolicyPorts {
  /** Undefined when the image source has no OCI reader: every verification then errors. */
  readonly ports?: IvpolPorts;

  constructor(
    images: ImageDataSource,
    /** Where bare Secret names of a cluster policy are read (the pull Secret cache's namespace). */
    private readonly controllerNamespace?: string,
    cache: VerificationCache = sharedVerificationCache(),
  ) {
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
        const secrets = access.namespace !== undefined ? [] : access.secrets?.map((ref) => this.ownSecret(ref));
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

  /** A cluster policy's reference as a name in the controller's namespace (where its Secrets are read). */
  private ownSecret(reference: string): string {
    const slash = reference.indexOf('/');
    if (slash < 0) return reference;
    const namespace = reference.slice(0, slash);
    if (this.controllerNamespace !== undefined && namespace === this.controllerNamespace)
      return reference.slice(slash + 1);
    throw new Error(
      `credentials.secrets ${JSON.stringify(reference)}: Secrets outside the controller's namespace${this.controllerNamespace ? ` (${this.controllerNamespace})` : ''} are not supported yet`,
    );
  }
}
