/** Namespace labels for policies' namespaceSelector, from an informer (no API call per request). */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InformerFactory, type Informer, type KubeObject } from '@edict/kube';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';

@Injectable()
export class NamespaceLabels implements OnModuleInit {
  private readonly informer: Informer<KubeObject>;

  constructor(@Inject(CONTROLLER_CONFIG) settings: ControllerConfig, informers: InformerFactory) {
    this.informer = informers.create<KubeObject>({
      apiVersion: 'v1',
      kind: 'Namespace',
      watchTimeoutSeconds: settings.watchTimeoutSeconds,
    });
  }

  onModuleInit(): void {
    this.informer.start();
  }

  /** The namespace's labels; undefined for cluster-scoped requests or unknown namespaces. */
  labelsOf(namespace: string | undefined): Record<string, string> | undefined {
    if (!namespace) return undefined;
    const metadata = this.informer.get(namespace)?.metadata as { labels?: Record<string, string> } | undefined;
    return metadata?.labels ?? {};
  }

  hasSynced(): boolean {
    return this.informer.hasSynced();
  }
}
