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
}

/** Where the context caches get their informers (libs/kube's InformerFactory, which stops them all). */
export type InformerSource = Pick<InformerFactory, 'create'>;
