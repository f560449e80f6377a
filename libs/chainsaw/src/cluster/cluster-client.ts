/**
 * What the runner needs from a cluster. Errors are thrown as `Error`s whose message is what the
 * API server said (a Status message, as `kubectl` and chainsaw's `$error` show it); a kind the
 * server does not serve throws NoKindMatchError from every method, and an answer worth retrying
 * (conflict, timeout, throttling, unavailability) is a TransientClusterError (cluster-errors.ts).
 */
import type { JsonObject } from '@edict/foundation';

export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name?: string;
}

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface ClusterClient {
  /** Whether the kind is namespaced, from discovery; throws when the server does not serve it. */
  isNamespaced(apiVersion: string, kind: string): Promise<boolean>;
  /** The object, or undefined when it does not exist (its kind being served). */
  get(ref: ObjectRef & { readonly name: string }): Promise<JsonObject | undefined>;
  /** Objects of a kind (in a namespace when given), filtered by a label selector. */
  list(ref: ObjectRef, options?: { readonly labelSelector?: string }): Promise<JsonObject[]>;
  create(object: JsonObject): Promise<JsonObject>;
  /** PUT of the whole object (its resourceVersion guards against conflicts). */
  update(object: JsonObject): Promise<JsonObject>;
  /** A JSON merge patch (RFC 7386). */
  patch(ref: ObjectRef & { readonly name: string }, mergePatch: JsonObject): Promise<JsonObject>;
  /** Requests deletion; false when the object did not exist. */
  delete(
    ref: ObjectRef & { readonly name: string },
    options?: { readonly propagationPolicy?: PropagationPolicy },
  ): Promise<boolean>;
}
