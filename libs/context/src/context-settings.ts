/** The controller settings context loading follows (a controller's configuration has them). */
import type { InformerFactory } from '@edict/kube';
import type { ApiCallSettings } from './context-api-callers';

export interface ContextSettings extends ApiCallSettings {
  /** The controller's own namespace: registry Secrets are read from it, as Kyverno reads them. */
  readonly namespace: string;
  /** Server-side watch length of the context informers. */
  readonly watchTimeoutSeconds: number;
  /** Kyverno's --imagePullSecrets: the Secrets of imageRegistry entries that name no credentials. */
  readonly imagePullSecrets: readonly string[];
  /** Addresses registry calls may reach despite the egress block list (EDICT_REGISTRY_ALLOWED_ADDRESSES). */
  readonly registryAllowedAddresses?: readonly string[];
  /** Registries always allowed plain HTTP and unverified TLS (EDICT_INSECURE_REGISTRIES). */
  readonly insecureRegistries?: readonly string[];
  /** Kyverno's --enableTuf: keyless and bundle verification use a TUF trusted root (offline snapshot without a mirror). */
  readonly enableTuf?: boolean;
  /** Kyverno's --tufMirror: the TUF repository to refresh the trusted root from (the only setting that fetches). */
  readonly tufMirror?: string;
  /** Kyverno's --tufRoot: the mirror's initial root.json (a file path). */
  readonly tufRoot?: string;
  /** Kyverno's --tufRootRaw: the mirror's initial root.json, base64. */
  readonly tufRootRaw?: string;
  /** A Sigstore trusted_root.json file used as is (offline, no TUF; wins over the TUF settings). */
  readonly trustedRootPath?: string;
  /** Kyverno's --maxGlobalContextEntries: GlobalContextEntries held at most (0 or absent: unbounded). */
  readonly maxGlobalContextEntries?: number;
}

/** Where the context caches get their informers (libs/kube's InformerFactory, which stops them all). */
export type InformerSource = Pick<InformerFactory, 'create'>;
