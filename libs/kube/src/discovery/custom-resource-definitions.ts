/**
 * The cluster's CustomResourceDefinitions, from one informer, for:
 *  - policy validation (the admission webhook and each controller's policy cache), which tells a
 *    namespaced Policy that matches a cluster-scoped custom kind (or a generate rule that gives one
 *    a namespace) what Kyverno would, which learns scopes from API discovery (built-in kinds are the
 *    engine's own list);
 *  - the admission controller's webhook controller, which resolves policy kinds again when the
 *    served types change, so a kind whose CRD comes after the policy gets into the webhooks.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import type { KubeObject } from '@edict/foundation';
import type { Informer } from '../informer/informer';
import { InformerFactory } from '../informer/informer-factory';
import { InformerService } from '../informer/informer-service';

/** What learns the cluster-scoped custom kinds (the policy cache fits). */
export interface ClusterScopedKindsSink {
  setClusterScopedKinds(kinds: string[]): void;
}

interface CrdSpec {
  group?: string;
  scope?: string;
  names?: { kind?: string };
  versions?: Array<{ name?: string; served?: boolean }>;
}

export class CustomResourceDefinitions extends InformerService {
  private readonly informer: Informer<KubeObject>;

  constructor(informers: InformerFactory, watchTimeoutSeconds: number) {
    super(informers, watchTimeoutSeconds);
    this.informer = this.watch<KubeObject>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });
  }

  /**
   * The cluster-scoped CRDs known now, each as its kind and as `group/version/Kind` for every served
   * version (the two forms Kyverno collects from discovery), sorted.
   */
  clusterScopedKinds(): string[] {
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

  /** Keeps the cache validating policies with the cluster-scoped custom kinds known now. */
  feedClusterScopedKinds(policies: ClusterScopedKindsSink): void {
    this.onChange(() => policies.setClusterScopedKinds(this.clusterScopedKinds()));
  }

  /** Calls `listener` with the CRD's group whenever a CRD is added, changed or removed; returns its removal. */
  onChange(listener: (group: string) => void): () => void {
    const removals = (['add', 'update', 'delete'] as const).map((event) =>
      this.informer.on(event, (crd: KubeObject) => listener((crd.spec as CrdSpec | undefined)?.group ?? '')),
    );
    return () => removals.forEach((remove) => remove());
  }
}

/** Imported once per app (the admission controller's webhook module shares its instance). */
@Module({})
export class CustomResourceDefinitionsModule {
  static forRoot(watchTimeoutSeconds: number): DynamicModule {
    return {
      module: CustomResourceDefinitionsModule,
      providers: [
        {
          provide: CustomResourceDefinitions,
          inject: [InformerFactory],
          useFactory: (informers: InformerFactory) => new CustomResourceDefinitions(informers, watchTimeoutSeconds),
        },
      ],
      exports: [CustomResourceDefinitions],
    };
  }
}
