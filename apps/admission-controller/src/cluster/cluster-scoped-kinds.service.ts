/**
 * The cluster-scoped custom resources, by kind name and as `group/version/Kind` for every served
 * version (the two forms Kyverno collects from discovery), from an informer on
 * CustomResourceDefinitions, so policy validation can tell what Kyverno would, which
 * learns scopes from API discovery: that a namespaced Policy matches one, or that a generate rule
 * gives one a namespace. The policy webhook reads them per request; the policy cache is told of
 * every change (it validates the policies it holds again). Built-in kinds are the engine's own list.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InformerFactory, type Informer, type KubeObject } from '@edict/kube';
import { PolicyCache } from '@edict/policy';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';

interface CrdSpec {
  group?: string;
  scope?: string;
  names?: { kind?: string };
  versions?: Array<{ name?: string; served?: boolean }>;
}

@Injectable()
export class ClusterScopedKinds implements OnModuleInit {
  private readonly informer: Informer<KubeObject>;

  constructor(
    @Inject(CONTROLLER_CONFIG) settings: ControllerConfig,
    informers: InformerFactory,
    private readonly policies: PolicyCache,
  ) {
    this.informer = informers.create<KubeObject>({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      watchTimeoutSeconds: settings.watchTimeoutSeconds,
    });
  }

  onModuleInit(): void {
    const changed = () => this.policies.setClusterScopedKinds(this.kinds());
    this.informer.on('add', changed);
    this.informer.on('update', changed);
    this.informer.on('delete', changed);
    this.informer.start();
  }

  /** The cluster-scoped CRDs known now: each kind, and each `group/version/Kind`, sorted. */
  kinds(): string[] {
    const kinds = new Set<string>();
    for (const crd of this.informer.list()) {
      const spec = crd.spec as CrdSpec | undefined;
      if (spec?.scope !== 'Cluster' || !spec.group || !spec.names?.kind) continue;
      kinds.add(spec.names.kind);
      for (const version of spec.versions ?? []) {
        if (version.name && version.served !== false) kinds.add(`${spec.group}/${version.name}/${spec.names.kind}`);
      }
    }
    return [...kinds].sort();
  }
}
