/**
 * The skeleton of a service that reads the cluster through informers kept for the whole life of
 * its module: they come from the InformerFactory (which stops them when the module is destroyed),
 * start together when the module initializes, and the service is ready once every one has listed.
 * Informers that live for a leader's term or follow policies are started and stopped by their
 * controllers instead.
 */
import type { OnModuleInit } from '@nestjs/common';
import type { KubeObject, ObjectHeader } from '@edict/foundation';
import type { Informer } from './informer';
import type { InformerFactory, InformerSpec } from './informer-factory';

export abstract class InformerService implements OnModuleInit {
  private readonly informers: Pick<Informer<ObjectHeader>, 'start' | 'hasSynced' | 'waitForSync'>[] = [];

  protected constructor(
    private readonly factory: InformerFactory,
    private readonly watchTimeoutSeconds: number,
  ) {}

  /** A new informer of this service: not started before the module initializes. */
  protected watch<T extends ObjectHeader = KubeObject>(
    spec: Omit<InformerSpec<T>, 'watchTimeoutSeconds'>,
  ): Informer<T> {
    const informer = this.factory.create<T>({ ...spec, watchTimeoutSeconds: this.watchTimeoutSeconds });
    this.informers.push(informer);
    return informer;
  }

  onModuleInit(): void {
    for (const informer of this.informers) informer.start();
  }

  /** Whether every informer of this service has listed once. */
  hasSynced(): boolean {
    return this.informers.every((informer) => informer.hasSynced());
  }

  async waitForSync(timeoutMs?: number): Promise<void> {
    await Promise.all(this.informers.map((informer) => informer.waitForSync(timeoutMs)));
  }
}
