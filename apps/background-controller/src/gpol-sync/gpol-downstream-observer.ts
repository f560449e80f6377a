/**
 * Where the generation of a GeneratingPolicy's UpdateRequest reports what it generated, so that
 * synchronize watches those types and knows those objects from then on (Kyverno's generate
 * controller calls its watch manager's SyncWatchers the same way). Only the leader processes
 * UpdateRequests and runs synchronize, so both ends are in the same process.
 */
import { Injectable } from '@nestjs/common';
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';

export type GeneratedListener = (policy: CompiledGeneratingPolicy, objects: readonly KubeObject[]) => void;

@Injectable()
export class GpolDownstreamObserver {
  private readonly listeners = new Set<GeneratedListener>();

  /** `objects` were generated (created or updated, as the API server returned them) for `policy`. */
  generated(policy: CompiledGeneratingPolicy, objects: readonly KubeObject[]): void {
    if (objects.length === 0) return;
    for (const listener of this.listeners) listener(policy, objects);
  }

  /** Calls `listener` for each report; returns its removal. */
  listen(listener: GeneratedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
