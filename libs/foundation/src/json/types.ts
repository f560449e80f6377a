/** JSON values as they come out of YAML/JSON documents and go into JMESPath. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** The metadata fields Edict reads by name (a type literal, so it stays assignable to JsonObject). */
export type ObjectMetaFields = {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
};

/**
 * What every Kubernetes object has, whatever its body is typed as: the bound of generic clients and
 * caches (`Informer<T extends ObjectHeader>`), so that typed objects (reports, UpdateRequests) and
 * plain {@link KubeObject}s go through the same client.
 */
export interface ObjectHeader {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMetaFields;
}

/** A Kubernetes object as JSON: any JSON object with the usual header fields. */
export interface KubeObject extends JsonObject {
  apiVersion: string;
  kind: string;
  metadata: JsonObject & ObjectMetaFields;
}
