/** JSON values as they come out of YAML/JSON documents and go into JMESPath. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A Kubernetes object: any JSON object with the usual header fields. */
export interface KubeObject extends JsonObject {
  apiVersion: string;
  kind: string;
  metadata: JsonObject & {
    name?: string;
    generateName?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
}
