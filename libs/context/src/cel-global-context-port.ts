/** `globalContext.Get` of Kyverno's CEL policies from the controller's GlobalContextEntry store. */
import type { CelGlobalContextPort } from '@edict/cel';
import type { JsonValue } from '@edict/foundation';
import type { GlobalContextStore } from './global-context-store';

export class StoreCelGlobalContextPort implements CelGlobalContextPort {
  constructor(private readonly store: Pick<GlobalContextStore, 'get'>) {}

  /** Undefined when there is no such entry; an entry not loaded yet, or a failed projection, throws. */
  get(name: string, projection: string): JsonValue | undefined {
    return this.store.get(name, projection);
  }
}
