/** Creates informers over the module's API client and stops them all when the module is destroyed. */
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { KubeObject, ObjectHeader } from '@edict/foundation';
import { KubeResources } from '../http/kube-resources';
import { Informer, type InformerOptions } from './informer';
import { resourceListWatch, type ResourceListWatchOptions } from './list-watch';
import { metadataOnly } from './metadata-only';

export type InformerSpec<T extends ObjectHeader = KubeObject> = ResourceListWatchOptions &
  Omit<InformerOptions<T>, 'name'> & {
    /** Keep only the objects' identifying metadata (for informers that count or queue, not read). */
    readonly metadataOnly?: boolean;
  };

@Injectable()
export class InformerFactory implements OnModuleDestroy {
  /**
   * The informers not stopped yet, to stop with the module: one its owner stopped (a leader's term
   * ended, a policy went away) is dropped at once, so nothing keeps it or its cache alive.
   */
  private readonly informers = new Set<Pick<Informer<ObjectHeader>, 'stop'>>();
  private readonly logger = new Logger('Informer');

  constructor(private readonly resources: KubeResources) {}

  /** A new informer (not started). */
  create<T extends ObjectHeader = KubeObject>(spec: InformerSpec<T>): Informer<T> {
    const name = `${spec.apiVersion}/${spec.kind}${spec.namespace ? ` in ${spec.namespace}` : ''}`;
    const source = resourceListWatch<T>(this.resources, spec);
    const slim = spec.metadataOnly ? metadataOnly(source) : source;
    const informer: Informer<T> = new Informer<T>(slim, {
      logger: { warn: (message) => this.logger.warn(message), debug: (message) => this.logger.debug(message) },
      ...spec,
      name,
      onStop: () => {
        this.informers.delete(informer);
        spec.onStop?.();
      },
    });
    this.informers.add(informer);
    return informer;
  }

  /** How many informers it made are not stopped yet. */
  get live(): number {
    return this.informers.size;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.informers].map((informer) => informer.stop()));
    this.informers.clear();
  }
}
