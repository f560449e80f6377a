/** Creates informers over the module's API client and stops them all when the module is destroyed. */
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { KubeResources, type KubeObject } from '../http/kube-resources';
import { Informer, type InformerOptions } from './informer';
import { resourceListWatch, type ListWatchSource, type ResourceListWatchOptions } from './list-watch';
import { metadataOnly } from './metadata-only';

export type InformerSpec<T extends KubeObject> = ResourceListWatchOptions &
  Omit<InformerOptions<T>, 'name'> & {
    /** Keep only the objects' identifying metadata (for informers that count or queue, not read). */
    readonly metadataOnly?: boolean;
  };

@Injectable()
export class InformerFactory implements OnModuleDestroy {
  private readonly informers = new Set<Informer<KubeObject>>();
  private readonly logger = new Logger('Informer');

  constructor(private readonly resources: KubeResources) {}

  /** A new informer (not started). */
  create<T extends KubeObject>(spec: InformerSpec<T>): Informer<T> {
    const name = `${spec.apiVersion}/${spec.kind}${spec.namespace ? ` in ${spec.namespace}` : ''}`;
    const source = resourceListWatch<T>(this.resources, spec);
    const slim = spec.metadataOnly
      ? (metadataOnly(source as ListWatchSource<KubeObject>) as ListWatchSource<T>)
      : source;
    const informer = new Informer<T>(slim, {
      logger: { warn: (message) => this.logger.warn(message), debug: (message) => this.logger.debug(message) },
      ...spec,
      name,
    });
    this.informers.add(informer as unknown as Informer<KubeObject>);
    return informer;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.informers].map((informer) => informer.stop()));
    this.informers.clear();
  }
}
