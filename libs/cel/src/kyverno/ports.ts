import type { EvaluationDeadline, JsonObject, JsonValue } from '@edict/foundation';

/**
 * The ports through which Kyverno's CEL libraries reach outside the expression (Kyverno's
 * `http.ContextInterface`, `resource.ContextInterface`, `globalcontext.ContextInterface`,
 * `imagedata.ContextInterface`). Every method may answer with a Promise (evaluation then returns
 * one). None throws for "not found": that answer is `null` / `undefined` as documented per method.
 * A failure is thrown as an Error (a CelPortError when it carries a Kubernetes reason).
 */
export interface KyvernoCelPorts {
  /** `http.Get/Post/Put/Client`, through Edict's egress guards. */
  readonly http?: CelHttpPort;
  /** `resource.Get/List/Post/ToGVR`: Kubernetes objects. */
  readonly resources?: CelResourcePort;
  /** `globalContext.Get`: GlobalContextEntry data by name and projection. */
  readonly globalContext?: CelGlobalContextPort;
  /** `image.GetMetadata`: an image's manifest and config from its registry. */
  readonly imageData?: CelImageDataPort;
  /** `generator.Apply`: what a GeneratingPolicy asks to create (the engine behind it decides). */
  readonly generator?: CelGeneratorPort;
}

/** What a port call is given: a signal aborted when the evaluation's deadline passes, and a size cap. */
export interface CelPortCall {
  readonly signal?: AbortSignal;
  /** The most bytes (response body, object) the call may hand back; larger answers are an error. */
  readonly maxResponseBytes: number;
}

export type CelHttpMethod = 'GET' | 'POST' | 'PUT';

export interface CelHttpRequest {
  readonly method: CelHttpMethod;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** POST/PUT only: the request body, already JSON-encoded as Kyverno encodes it (with a final newline). */
  readonly body?: string;
  /** PEM CA bundle from `http.Client(caBundle)`; absent: the system's trust roots. */
  readonly caBundle?: string;
}

/**
 * A server's answer: its status and raw body, which the library decodes as JSON the way Kyverno
 * does (a JSON object gains `statusCode`; anything else becomes `{body, statusCode}`, `body` null
 * when not JSON). Or, for Kyverno's CLI `apiCallResponses` mocks, `mocked`: the value the call
 * answers as it is (Kyverno returns a mock's `response` unchanged, matched by `METHOD:url` or `url`).
 */
export type CelHttpResponse = { readonly statusCode: number; readonly body: string } | { readonly mocked: JsonValue };

export interface CelHttpPort {
  /** Sends one request (the port applies its egress guards: allow/block lists, private ranges...). */
  send(request: CelHttpRequest, call: CelPortCall): Promise<CelHttpResponse> | CelHttpResponse;
}

/** `apiVersion` as Kubernetes writes it (`v1`, `apps/v1`); `resource` is the plural (`configmaps`). */
export interface CelResourceTarget {
  readonly apiVersion: string;
  readonly resource: string;
  /** `''` for cluster-scoped resources (or every namespace, for a list). */
  readonly namespace: string;
}

export interface CelGroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export interface CelResourcePort {
  /** The object, or `null` when it does not exist. */
  get(
    target: CelResourceTarget & { readonly name: string },
    call: CelPortCall,
  ): Promise<JsonObject | null> | JsonObject | null;
  /** The list object as the API server returns it (`apiVersion`, `kind`, `metadata`, `items`). */
  list(
    target: CelResourceTarget & { readonly labels?: Readonly<Record<string, string>> },
    call: CelPortCall,
  ): Promise<JsonObject> | JsonObject;
  /** Creates the object and returns what the API server stored. */
  create(target: CelResourceTarget, object: JsonObject, call: CelPortCall): Promise<JsonObject> | JsonObject;
  /** The resource serving `kind` in `apiVersion` (discovery). */
  toGVR(
    apiVersion: string,
    kind: string,
    call: CelPortCall,
  ): Promise<CelGroupVersionResource> | CelGroupVersionResource;
}

export interface CelGlobalContextPort {
  /** The entry's data (after `projection`, `''` for all of it), or `undefined` when there is no such entry. */
  get(name: string, projection: string, call: CelPortCall): Promise<JsonValue | undefined> | JsonValue | undefined;
}

/**
 * Image data as Kyverno's image data loader gives it: `image`, `resolvedImage`, `registry`,
 * `repository`, `identifier`, `tag`, `digest`, `imageIndex`, `manifest`, `config`.
 */
export interface CelImageDataPort {
  get(reference: string, call: CelPortCall): Promise<JsonObject> | JsonObject;
}

/**
 * Kyverno's generator library hands its objects here: `namespace` is the one named in
 * `generator.Apply` (a namespaced policy's own), each object as the expression built it (a List
 * object, `items` and all, as one). The port records them; it labels, bounds and creates them or
 * throws (a CelPortError with reason Forbidden reads "permission denied"). Synchronous: nothing is
 * written while the expression runs.
 */
export interface CelGeneratorPort {
  apply(namespace: string, objects: readonly JsonObject[]): void;
}

/** A port failure with the Kubernetes reason it carries (the library words 403/401 as "permission denied"). */
export class CelPortError extends Error {
  override readonly name = 'CelPortError';
  constructor(
    message: string,
    readonly reason?: 'Forbidden' | 'Unauthorized' | 'NotFound' | 'Invalid' | 'Conflict' | 'Unavailable',
  ) {
    super(message);
  }
}

/** Where and how the expression runs: the policy's namespace confines what it may reach. */
export interface KyvernoCelScope {
  /** A NamespacedValidatingPolicy's namespace: `resource` calls stay in it, `globalContext` is refused. */
  readonly policyNamespace?: string;
  /** Kyverno's `--allowHTTPInNamespacedPolicies` (default false: `http` fails in namespaced policies). */
  readonly allowHttpInNamespacedPolicies?: boolean;
  /** Stops port calls once it passes and bounds each call's wait. */
  readonly deadline?: EvaluationDeadline;
  /** Overrides of KYVERNO_CEL_LIMITS. */
  readonly limits?: Partial<KyvernoCelLimits>;
}

/** Bounds of Kyverno's CEL libraries for one evaluation (one activation). */
export interface KyvernoCelLimits {
  /** Port calls (http, resource, globalContext, image data) per activation. */
  readonly maxCalls: number;
  /** Bytes of one port answer (response body, object, list). */
  readonly maxResponseBytes: number;
  /** Characters of a string `json.unmarshal`, `yaml.parse`, `x509.decode` or `gzip.decompress` reads or yields. */
  readonly maxDocumentLength: number;
  /** Characters of a `random()` pattern. */
  readonly maxPatternLength: number;
}

export const KYVERNO_CEL_LIMITS: KyvernoCelLimits = Object.freeze({
  maxCalls: 32,
  maxResponseBytes: 2 * 1024 * 1024,
  maxDocumentLength: 3 * 1024 * 1024,
  maxPatternLength: 1024,
});
