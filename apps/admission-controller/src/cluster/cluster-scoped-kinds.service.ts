/**
 * The kinds of cluster-scoped custom resources, from an informer on CustomResourceDefinitions, so
 * policy validation can tell a namespaced Policy that matches one (or a generate rule that gives
 * one a namespace) what Kyverno would, which learns scopes from API discovery. Built-in kinds are
 * the engine's own list.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InformerFactory, type Informer, type KubeObject } from '@edict/kube';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';

interface CrdSpec {
  scope?: string;
  names?: { kind?: string };
}

@Injectable()
export class ClusterScopedKinds implements OnModuleInit {
  private readonly informer: Informer<KubeObject>;

  constructor(@Inject(CONTROLLER_CONFIG) settings: ControllerConfig, informers: InformerFactory) {
    this.informer = informers.create<KubeObject>({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      watchTimeoutSeconds: settings.watchTimeoutSeconds,
    });
  }

  onModuleInit(): void {
    this.informer.start();
  }

  /** Kinds of the cluster-scoped CRDs known now. */
  kinds(): string[] {
    return this.informer
      .list()
      .map((crd) => crd.spec as CrdSpec | undefined)
      .filter((spec) => spec?.scope === 'Cluster' && typeof spec.names?.kind === 'string')
      .map((spec) => spec!.names!.kind!);
  }
}
